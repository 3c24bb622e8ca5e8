"""tilelang's fp8 examples for this campaign's suites, from the checkout TLBENCH_TILELANG_EXAMPLES
names (suites/conformance/conformance_examples.py: skipped with one line where none is named)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "suites" / "conformance"))
from conformance_examples import example  # noqa: E402

cast = example("cast/example_per_token_cast_to_fp8.py")
gemm_fp8 = example("gemm_fp8/example_tilelang_gemm_fp8.py")



def fp8_inputs(device, M, N, K):
    import torch

    return [torch.randn(M, K, device=device).half().to(torch.float8_e4m3fn),
            torch.randn(N, K, device=device).half().to(torch.float8_e4m3fn)]


def fp16_reference(a, b):
    return (a.half() @ b.half().T).to(a.dtype)
