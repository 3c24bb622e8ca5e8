"""FP8 GEMM with an fp8 output (``C = A @ B^T``, e4m3 in and out): tilelang's
examples/gemm_fp8/example_tilelang_gemm_fp8.py.  An fp8 output rounds differently from
torch's on a few elements, so it is judged as the example judges it: its own ``calc_diff``
(1 - 2xy/(x^2+y^2)) under 1e-3.  Vendor item: cuBLASLt's fp8 GEMM (torch._scaled_mm, unit
scales, fp8 out).  No Ascend body."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

gemm_fp8 = example("gemm_fp8/example_tilelang_gemm_fp8.py")


def fp8_inputs(device, M, N, K, dtype):
    fp8 = getattr(torch, dtype)
    return [torch.randn(M, K, device=device).half().to(fp8), torch.randn(N, K, device=device).half().to(fp8)]


def close_enough(out, ref):
    diff = gemm_fp8.calc_diff(out, ref).item()
    return None if diff < 1e-3 else f"calc_diff {diff:.2e} is not under 1e-3"


def scaled_mm(a, b):
    one = torch.ones((), device=a.device)
    return torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=a.dtype)


SWEEP = kernel_sweep(
    "gemm_fp8", {"cuda": gemm_fp8.matmul},
    sizes={"M": 4096, "N": 4096, "K": 4096},
    smoke={"M": 256, "N": 256, "K": 256},
    quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [64, 128]},
    constants={"dtype": "float8_e4m3fn"},
    inputs=fp8_inputs,
    reference=lambda a, b: (a.half() @ b.half().T).to(a.dtype),
    check=close_enough,
    vendor=scaled_mm, vendor_label="torch._scaled_mm (cuBLASLt fp8), fp8 out",
    flops=lambda M, N, K: 2 * M * N * K,
    description="fp8 e4m3 GEMM, fp8 out, 4096 cubed, vs cuBLASLt",
)


def test_gemm_fp8(tlbench):
    tlbench.run()
