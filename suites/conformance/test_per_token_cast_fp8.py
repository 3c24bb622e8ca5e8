"""Per-token (per group of 128) cast to fp8 e4m3, memory-bound: tilelang's
examples/cast/example_per_token_cast_to_fp8.py and its Ascend twin
examples/ascend/example_per_token_cast_to_fp8.py (SIMD or SIMT; it returns a compiled
``@tilelang.jit`` kernel, whose PrimFunc tlbench takes).  The fp8 output may sit one e4m3
step from torch's on a rounding tie: judged by steps(1); the fp32 scales by a tight
tolerance.  Vendor item: the example's own torch path."""

import torch

from tlbench import kernel_sweep, steps, tolerance
from conformance_examples import example

cast = example("cast/example_per_token_cast_to_fp8.py")
cast_ascend = example("ascend/example_per_token_cast_to_fp8.py")

SWEEP = kernel_sweep(
    "per_token_cast_fp8", {"cuda": cast.per_token_cast_to_fp8, "ascend": cast_ascend.per_token_cast_to_fp8},
    sizes={"M": 8192, "N": 8192},
    smoke={"M": 512, "N": 1024},
    quick=(),
    axes={"cuda": {"blk_m": [8, 16]}, "ascend": {"mode": ["simd", "simt"]}},
    inputs=lambda device, M, N: [torch.randn(M, N, device=device)],
    reference=cast.ref_program,
    check=[steps(1), tolerance(rtol=1e-5, atol=1e-7)],
    vendor=cast.ref_program, vendor_label="torch (the example's ref_program)",
    bytes_moved=lambda M, N: M * N * (4 + 1) + M * (N // 128) * 4,
    flops=lambda M, N: 3 * M * N,
    description="per-token fp8 cast, fp32 -> e4m3 + scales, 8192x8192: GB/s vs torch",
)


def test_per_token_cast_fp8(tlbench):
    tlbench.run()
