"""The same fp8-output GEMM judged by ``similarity()``: expected to pass."""

from tlbench import kernel_sweep, similarity
from fp8_examples import fp16_reference, fp8_inputs, gemm_fp8

SWEEP = kernel_sweep(
    "gemm_fp8_similarity", {"cuda": gemm_fp8.matmul},
    sizes={"M": 4096, "N": 4096, "K": 4096}, smoke={"M": 256, "N": 256, "K": 256}, quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [128]},
    constants={"dtype": "float8_e4m3fn"},
    inputs=fp8_inputs, reference=fp16_reference,
    check=similarity(),
)


def test_gemm_fp8_similarity(tlbench):
    tlbench.run()
