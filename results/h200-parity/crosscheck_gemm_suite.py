"""The GEMMs the timer cross-check times (results/h200-parity/timer_crosscheck.py ``--suite``).

Not a pytest suite (nothing collects it): a ``SWEEP`` the tool reads.  fp16 ``C = A @ B^T`` at
1024^3, 2048^3, 4096^3 and 8192^3: the 128x256x64 tile on 256 threads with 3 stages (the kernel
earlier harness/ncu checks used), the recorded best config per problem where
results/best_configs.json has one (labelled ``best``), and cuBLAS on the same inputs.
"""

from tlbench.backends.kernels.gemm import GemmConfig, GemmProblem
from tlbench.harness.core.sweep import Sweep

SIZES = (1024, 2048, 4096, 8192)

SWEEP = Sweep(
    name="timer_crosscheck_gemm",
    description="fp16 GEMM at four sizes for the timer cross-check",
    problems=[GemmProblem(n, n, n, "float16") for n in SIZES],
    configs=[GemmConfig(128, 256, 64, 256, "auto", 3)],
    backends=("nvidia",),
    vendor=True,
    kinds=("device",),
    best_configs="results/best_configs.json",
)
