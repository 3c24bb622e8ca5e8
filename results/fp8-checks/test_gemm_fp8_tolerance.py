"""An fp8-output GEMM (tilelang's examples/gemm_fp8/example_tilelang_gemm_fp8.py) at 4096^3
judged by a tolerance: expected to fail, its words naming ``similarity()``."""

from tlbench import tolerance
from fp8_examples import gemm_fp8_sweep

SWEEP = gemm_fp8_sweep("gemm_fp8_tolerance", tolerance(rtol=1e-2, atol=1e-2))


def test_gemm_fp8_tolerance(tlbench):
    tlbench.run()
