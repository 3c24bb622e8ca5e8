"""tilelang's fp8 examples for this campaign's suites, from the checkout TLBENCH_TILELANG_EXAMPLES
names (suites/conformance/conformance_examples.py: skipped with one line where none is named)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "suites" / "conformance"))
from conformance_examples import example  # noqa: E402

cast = example("cast/example_per_token_cast_to_fp8.py")
gemm_fp8 = example("gemm_fp8/example_tilelang_gemm_fp8.py")


def gemm_fp8_sweep(name, check):
    """The fp8-output GEMM at 4096^3 (and a 256^3 smoke size), judged by ``check``."""
    import torch

    from tlbench import kernel_sweep

    def fp8_inputs(device, M, N, K):
        return [torch.randn(M, K, device=device).half().to(torch.float8_e4m3fn),
                torch.randn(N, K, device=device).half().to(torch.float8_e4m3fn)]

    return kernel_sweep(
        name, {"cuda": gemm_fp8.matmul},
        sizes={"M": 4096, "N": 4096, "K": 4096}, smoke={"M": 256, "N": 256, "K": 256}, quick=(),
        axes={"block_M": [128], "block_N": [128], "block_K": [128]},
        constants={"dtype": "float8_e4m3fn"},
        inputs=fp8_inputs,
        reference=lambda a, b: (a.half() @ b.half().T).to(a.dtype),
        check=check,
    )
