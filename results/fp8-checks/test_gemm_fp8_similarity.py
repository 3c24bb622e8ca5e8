"""The same fp8-output GEMM judged by ``similarity()``: expected to pass."""

from tlbench import similarity
from fp8_examples import gemm_fp8_sweep

SWEEP = gemm_fp8_sweep("gemm_fp8_similarity", similarity())


def test_gemm_fp8_similarity(tlbench):
    tlbench.run()
