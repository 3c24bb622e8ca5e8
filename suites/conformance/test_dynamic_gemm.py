"""GEMM with every dimension symbolic (``T.dynamic("m")``, ``"n"``, ``"k"``; grid
``T.ceildiv(M, block_M)``): tilelang's examples/dynamic_shape/example_dynamic.py, with B
stored N x K (``trans_B=True``, the form the Ascend GEMM takes), and an Ascend port of it
beside this file with the same keyword arguments.
The factories take no size: one kernel per config serves every problem, its dimensions bound
from the tensors ``inputs`` returns, the output sized from them.  Vendor item: cuBLAS."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example
from ascend_dynamic_gemm import matmul_dynamic_nt_ascend

dynamic = example("dynamic_shape/example_dynamic.py")

SWEEP = kernel_sweep(
    "dynamic_gemm", {"cuda": dynamic.matmul_dynamic_mnk, "ascend": matmul_dynamic_nt_ascend},
    sizes=[{"M": 4096, "N": 4096, "K": 4096}, {"M": 8192, "N": 8192, "K": 8192}],
    smoke={"M": 512, "N": 256, "K": 384},
    quick=(),
    axes={"cuda": {"block_M": [128], "block_N": [128], "block_K": [32], "num_stages": [2, 3]},
          "ascend": {"block_M": [128], "block_N": [128], "block_K": [64], "num_stages": [2, 3]}},
    constants={"trans_A": False, "trans_B": True, "in_dtype": "float16", "out_dtype": "float16",
               "accum_dtype": "float32", "threads": 128},
    inputs=lambda device, M, N, K: [torch.rand(M, K, device=device).half(), torch.rand(N, K, device=device).half()],
    reference=lambda a, b: (a.float() @ b.float().T).half(),
    vendor=lambda a, b: a @ b.T, vendor_label="cuBLAS A @ B.T",
    flops=lambda M, N, K: 2 * M * N * K,
    description="fp16 GEMM, M/N/K all T.dynamic, one kernel per config for every size, vs cuBLAS",
)


def test_dynamic_gemm(tlbench):
    tlbench.run()
