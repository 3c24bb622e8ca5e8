"""GEMM with fp4 (e2m1) weights packed two a byte, dequantized to fp16 in the K loop:
tilelang's examples/dequantize_gemm/example_dequant_gemm_fp4_hopper.py.  The output is C
transposed (N x M), as the example writes it.  Vendor item: the example's ref_program (torch's
unfused path: unpack, convert, fp32 matmul).  No Ascend body."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

dequant = example("dequantize_gemm/example_dequant_gemm_fp4_hopper.py")

SWEEP = kernel_sweep(
    "dequant_gemm_fp4", {"cuda": dequant.matmul},
    sizes={"M": 4096, "N": 4096, "K": 4096},
    smoke={"M": 256, "N": 256, "K": 256},
    quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [128], "num_stages": [1, 2], "threads": [256]},
    constants={"in_dtype": "float16", "out_dtype": "float16", "accum_dtype": "float32", "num_bits": 4, "split": 1},
    inputs=lambda device, M, N, K: [torch.randn(M, K, device=device).half(),
                                    torch.randint(0, 256, (N, K // 2), dtype=torch.uint8, device=device)],
    reference=dequant.ref_program,
    vendor=dequant.ref_program, vendor_label="torch: unpack fp4, fp32 matmul (the example's ref_program)",
    flops=lambda M, N, K: 2 * M * N * K,
    description="fp16 x fp4(e2m1, packed) GEMM, 4096 cubed, vs torch's unfused dequantize + matmul",
)


def test_dequant_gemm_fp4(tlbench):
    tlbench.run()
