"""The probe's suite: 36 fp16 GEMM tiles at 1024^3, 2048^3 and 4096^3, device items only (the
built-in GEMM body, suites/gemm/body.py, declared as the suites declare it)."""

import sys
from pathlib import Path

SUITES = str(Path(__file__).resolve().parents[3] / "suites")  # the built-in body and its declaration
if SUITES not in sys.path:
    sys.path.insert(0, SUITES)

from tlbench.suites.gemm.sweep import GEMM, config, problem  # noqa: E402

from tlbench import kernel_sweep  # noqa: E402

SWEEP = kernel_sweep(
    "gemm", **(GEMM | {"vendor": None, "vendor_label": None}),  # kernels only: no vendor item
    sweep_name="hybrid_probe",
    sizes=[problem(s, s, s, "float16") for s in (1024, 2048, 4096)],
    configs=[config(bm, bn, 64, 128, "auto", s, group_m=8, stage_output=True)
             for bm, bn in ((128, 128), (64, 128), (128, 64), (64, 64)) for s in (2, 3, 4)],
    kinds=("device",),
)


def test_hybrid_probe(tlbench):
    tlbench.run()
