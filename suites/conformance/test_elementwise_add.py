"""Elementwise add, memory-bound: tilelang's examples/elementwise/example_elementwise_add.py
(CUDA, 2-D tiles) and its Ascend twin examples/ascend/example_vecadd.py (1-D over M*N
values, SIMT or SIMD).  Read it for GB/s and % of memory bandwidth against torch.add."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

elementwise = example("elementwise/example_elementwise_add.py")
vecadd = example("ascend/example_vecadd.py")


def vector_add_mn(M, N, mode):  # the Ascend example adds M*N fp32 values as one vector
    return vecadd.vector_add(M * N, mode)  # M*N must be a multiple of 524288


def make_inputs(device, M, N, dialect):
    shape = (M, N) if dialect == "cuda" else (M * N,)
    return [torch.randn(shape, device=device), torch.randn(shape, device=device)]


SWEEP = kernel_sweep(
    "elementwise_add", {"cuda": elementwise.elementwise_add, "ascend": vector_add_mn},
    sizes={"M": 8192, "N": 8192},
    smoke={"M": 1024, "N": 1024},
    quick=(),
    axes={"cuda": {"block_M": [32, 64], "block_N": [32], "threads": [128]},
          "ascend": {"mode": ["simt", "simd"]}},
    constants={"in_dtype": "float32", "out_dtype": "float32"},  # the CUDA body's; the Ascend one is fp32 only
    inputs=make_inputs,
    reference=elementwise.ref_program,
    vendor=torch.add, vendor_label="torch.add",
    bytes_moved=lambda M, N: 3 * 4 * M * N,
    flops=lambda M, N: M * N,
    description="elementwise add fp32, 8192x8192: GB/s vs torch.add",
)


def test_elementwise_add(tlbench):
    tlbench.run()
