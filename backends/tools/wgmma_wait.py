"""The consumer loop of a tile-sweep GEMM as tilelang writes it for sm_90a: the WGMMA issue and wait
lines of each k step, lowered on a CPU box.

usage: python -m tlbench.backends.tools.wgmma_wait [BLOCK_M BLOCK_N BLOCK_K THREADS STAGES]
(default 64 128 128 256 4, at 1024^3).  Contract: prints the case id, then those lines; exit 0.
"""
import sys

from . import suites_dir

suites_dir()  # the built-in GEMM body and its declaration
from tlbench.suites.gemm.sweep import GEMM, config, problem  # noqa: E402

from tlbench import kernel_sweep  # noqa: E402
from ..nvidia.backend import NvidiaBackend  # noqa: E402
from tlbench.harness.core.backend_api import BackendOptions  # noqa: E402


def main(argv: list[str]) -> None:
    bm, bn, bk, threads, stages = (int(a) for a in (argv or ["64", "128", "128", "256", "4"]))
    sweep = kernel_sweep("gemm", **GEMM, sizes=[problem(1024, 1024, 1024, "float16")],
                         configs=[config(bm, bn, bk, threads, "auto", stages, stage_output=True)])
    (case,) = sweep.cases("nvidia", "full")
    source = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"})).kernel_source(case)
    print(case.case_id)
    for line in source.splitlines():
        if any(word in line for word in ("for (int k", "wgmma_ss", "warpgroup_arrive", "warpgroup_wait", "].arrive()")):
            print("   ", line.strip()[:110])


if __name__ == "__main__":
    main(sys.argv[1:])
