"""The consumer loop of a tile-sweep GEMM as tilelang 0.1.15 writes it for sm_90a: the WGMMA issue
and wait lines of each k step.  Runs on a CPU box (lowering only).

usage: python3 results/h200-parity/wgmma_wait.py [BLOCK_M BLOCK_N BLOCK_K THREADS STAGES]   (default 64 128 128 256 4, at 1024^3)
"""
import sys

from tlbench.backends.kernels.gemm import GemmConfig, GemmProblem
from tlbench.backends.nvidia.backend import NvidiaBackend
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.cases import Case


def main(argv: list[str]) -> None:
    bm, bn, bk, threads, stages = (int(a) for a in (argv or ["64", "128", "128", "256", "4"]))
    case = Case(GemmProblem(1024, 1024, 1024, "float16"), GemmConfig(bm, bn, bk, threads, "auto", stages, stage_output=True))
    source = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"})).kernel_source(case)
    print(case.case_id)
    for line in source.splitlines():
        if any(word in line for word in ("for (int k", "wgmma_ss", "warpgroup_arrive", "warpgroup_wait", "].arrive()")):
            print("   ", line.strip()[:110])


if __name__ == "__main__":
    main(sys.argv[1:])
