"""An fp8-output GEMM (tilelang's examples/gemm_fp8/example_tilelang_gemm_fp8.py) at 4096^3
judged by a tolerance: expected to fail, its words naming ``similarity()``."""

from tlbench import kernel_sweep, tolerance
from fp8_examples import fp16_reference, fp8_inputs, gemm_fp8

SWEEP = kernel_sweep(
    "gemm_fp8_tolerance", {"cuda": gemm_fp8.matmul},
    sizes={"M": 4096, "N": 4096, "K": 4096}, smoke={"M": 256, "N": 256, "K": 256}, quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [128]},
    constants={"dtype": "float8_e4m3fn"},
    inputs=fp8_inputs, reference=fp16_reference,
    check=tolerance(rtol=1e-2, atol=1e-2),
)


def test_gemm_fp8_tolerance(tlbench):
    tlbench.run()
