"""The GEMMs the timer cross-check times (backends/tools/timer_crosscheck.py ``--suite``).

Not a pytest suite (nothing collects it): a ``SWEEP`` the tool reads.  fp16 ``C = A @ B^T`` at
1024^3, 2048^3, 4096^3 and 8192^3: the built-in GEMM body (suites/gemm/body.py, declared as
suites/gemm/test_stages.py declares it), the 128x256x64 tile on 256 threads with 3 stages (the kernel
earlier harness/ncu checks used), the recorded best config per problem where
results/best_configs.json has one (labelled ``best``), and cuBLAS on the same inputs.
"""

import sys
from pathlib import Path

SUITES = str(Path(__file__).resolve().parents[2] / "suites")  # the built-in body and its declaration
if SUITES not in sys.path:
    sys.path.insert(0, SUITES)

from tlbench.suites.gemm.sweep import GEMM, config, problem  # noqa: E402

from tlbench import kernel_sweep  # noqa: E402

SIZES = (1024, 2048, 4096, 8192)

SWEEP = kernel_sweep(
    "gemm", **GEMM,
    sweep_name="timer_crosscheck_gemm",
    description="fp16 GEMM at four sizes for the timer cross-check",
    sizes=[problem(n, n, n, "float16") for n in SIZES],
    configs=[config(128, 256, 64, 256, "auto", 3)],
    backends=("nvidia",),
    kinds=("device",),
    best_configs="results/best_configs.json",
)
