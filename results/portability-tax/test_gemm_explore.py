"""Exploration: the one GEMM body persistent over the 132 SMs (``num_cores=132``, ``T.Persistent``)
beside its best one-block-per-tile config and cuBLAS, 4096^3 and 8192^3 fp16.

Run from the repo root (results/portability-tax/run.sh explore).
"""

from tlbench.suites.gemm.sweep import GEMM, config, problem

from tlbench import kernel_sweep

BEST = config(128, 256, 64, 256, "auto", 4, group_m=16, stage_output=True)
PERSISTENT = [config(128, 256, 64, 256, "auto", s, num_cores=132, group_m=16, stage_output=so) for s in (3, 4) for so in (True, False)]

SWEEP = kernel_sweep(
    "gemm", **GEMM,
    sweep_name="gemm_explore",
    description="the one GEMM body persistent over 132 SMs beside its best tile and cuBLAS",
    sizes=[problem(4096, 4096, 4096, "float16"), problem(8192, 8192, 8192, "float16")],
    smoke=[problem(2048, 2048, 2048, "float16")],
    quick=(),
    configs=[BEST] + PERSISTENT,
    backends=("nvidia",),
    kinds=("device",),
)


def test_gemm_explore(tlbench):
    tlbench.run()
