"""The probe's suite: 36 fp16 GEMM tiles at 1024^3, 2048^3 and 4096^3, device items only."""

from tlbench.backends.kernels.gemm import GemmConfig, GemmProblem
from tlbench.harness.core.sweep import Sweep

SWEEP = Sweep(
    name="hybrid_probe",
    problems=[GemmProblem(s, s, s, "float16") for s in (1024, 2048, 4096)],
    configs=[GemmConfig(bm, bn, 64, 128, "auto", s, group_m=8, stage_output=True)
             for bm, bn in ((128, 128), (64, 128), (128, 64), (64, 64)) for s in (2, 3, 4)],
    kinds=("device",),
    vendor=False,
)


def test_hybrid_probe(tlbench):
    tlbench.run()
