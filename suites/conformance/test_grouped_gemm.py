"""Grouped GEMM (MoE experts: each group's rows times its own B): tilelang's
examples/grouped_gemm/example_grouped_gemm_fwd.py.  The group sizes are a problem size (the
kernel is built for them); the padded offsets depend on block_M, so ``inputs`` takes it.
Vendor item: the example's torch_gmm, one cuBLAS call per group (its kernel-only time covers
every kernel the call launches).  No Ascend body."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

grouped = example("grouped_gemm/example_grouped_gemm_fwd.py")


def make_inputs(device, batch_sizes_list, K, N, block_M):
    return list(grouped.construct_inputs(batch_sizes_list, K, N, False, block_M, device, torch.float16))


def per_group_cublas(a, b, batch_sizes, batch_offsets, batch_padded_offsets):
    return grouped.torch_gmm(a, b, batch_sizes, batch_offsets)


SWEEP = kernel_sweep(
    "grouped_gemm", {"cuda": grouped.grouped_gemm},
    sizes={"batch_sizes_list": [256, 512, 1024, 2048], "K": 8192, "N": 8192},
    smoke={"batch_sizes_list": [64, 128, 256], "K": 512, "N": 512},
    quick=(),
    axes={"block_M": [64], "block_N": [128], "block_K": [64], "num_stages": [2, 3], "threads": [256]},
    inputs=make_inputs,
    reference=per_group_cublas,
    vendor=per_group_cublas, vendor_label="torch_gmm: one cuBLAS call per group",
    flops=lambda batch_sizes_list, K, N: 2 * sum(batch_sizes_list) * K * N,
    description="grouped GEMM fp16, 4 groups of 256..2048 rows, K=N=8192, vs a loop of cuBLAS calls",
)


def test_grouped_gemm(tlbench):
    tlbench.run()
