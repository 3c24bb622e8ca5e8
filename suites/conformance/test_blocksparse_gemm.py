"""Block-sparse GEMM, tilelang's examples/blocksparse_gemm/example_blocksparse_gemm.py: a
T.Pipelined K loop that skips the K tiles its mask turns off.  The mask has one entry per
(block_M, block_N, block_K) tile, so ``inputs`` takes the tile.  The vendor item is dense
cuBLAS on the same A and B: a speed reference only (it computes another product), unchecked.
No Ascend body: the example's skip needs an accumulator cleared at the first live K tile,
which the Ascend cube path (clear_accum, no T.clear on L0C) does not express as written."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

blocksparse = example("blocksparse_gemm/example_blocksparse_gemm.py")


def make_inputs(device, M, N, K, block_M, block_N, block_K):
    a = torch.randn(M, K, device=device).half()
    b = torch.randn(K, N, device=device).half()
    mask = torch.rand(M // block_M, N // block_N, K // block_K, device=device) > 0.5  # sparsity 0.5
    return [a, b, mask]


SWEEP = kernel_sweep(
    "blocksparse_gemm", {"cuda": blocksparse.blocksparse_matmul},
    sizes={"M": 2048, "N": 2048, "K": 2048},
    smoke={"M": 1024, "N": 1024, "K": 1024},
    quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [32], "num_stages": [1, 2, 3],
          "thread_num": [128], "enable_rasteration": [True]},
    inputs=make_inputs,
    reference=blocksparse.ref_program,
    vendor=lambda a, b, mask: a @ b, vendor_label="cuBLAS dense A @ B (speed reference)", vendor_check=False,
    flops=lambda M, N, K: M * N * K,  # half the dense 2*M*N*K at sparsity 0.5
    description="block-sparse GEMM fp16, half the K tiles live, vs dense cuBLAS as a speed reference",
)


def test_blocksparse_gemm(tlbench):
    tlbench.run()
