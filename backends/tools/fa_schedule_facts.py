"""What tilelang's CUDA lowering did with each flash-attention body: the schedule facts behind the
one-body vs target-specific gap, read from the real lowering on any machine (no GPU).

Usage: ``python -m tlbench.backends.tools.fa_schedule_facts [--seq 8192] [--ptxas]`` (repository root)

Contract: ``source_facts(source)`` (wgmma waits by depth, named barriers, TMA stores, float
accumulators of generated CUDA) is pure; ``main`` prints one block per body (with ``--ptxas``
its registers and spills), exit 0.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from typing import Any


_WAIT = re.compile(r"(?:warpgroup_wait|wait_wgmma)<(\d+)>")
_ARRAY = re.compile(r"^\s*float (\w+)\[(\d+)\];", re.M)


def source_facts(source: str) -> dict[str, Any]:
    """Counts read from generated CUDA: waits by depth, named-barrier calls, TMA loads/stores, wgmma issues, and the
    float arrays of at least 64 elements (the accumulators)."""
    waits = Counter(_WAIT.findall(source))
    return {
        "wgmma_waits_by_depth": dict(sorted(waits.items())), "named_barrier_calls": source.count("named_barrier"),
        "tma_load_calls": source.count("tma_load"), "tma_store_calls": source.count("tma_store"),
        "wgmma_issue_sites": source.count("wgmma_ss<") + source.count("wgmma_rs<"),
        "float_accumulators": {name: int(n) for name, n in _ARRAY.findall(source) if int(n) >= 64},
    }


def _cases(problem) -> dict[str, Any]:
    """The suites' case of each config: declared with their own ``kernel_sweep`` arguments."""
    from dataclasses import asdict

    from . import suites_dir

    suites_dir()  # the FA kernel lives beside its suites
    from tlbench.suites.flash_attention.sweep import FA

    from tlbench import kernel_sweep

    configs = _configs()
    sweep = kernel_sweep("flash_attention", **FA, sizes=[asdict(problem)], configs=[asdict(c) for c in configs.values()],
                         module=__name__)
    return dict(zip(configs, sweep.cases("nvidia", "full")))


def _configs():
    from tlbench.suites.flash_attention.problem import FaConfig

    return {"shared 128x128 s1 t256": FaConfig(128, 128, 1, threads=256),
            "shared 128x128 s2 t256": FaConfig(128, 128, 2, threads=256),
            "hopper 128x128 s1 t256": FaConfig(128, 128, 1, threads=256, body="hopper"),
            "hopper_ws 128x192 s2 t384": FaConfig(128, 192, 2, threads=384, body="hopper_ws")}


def _ptxas(case, target) -> str:
    """nvcc's -Xptxas=-v lines for the case's build (tilelang's own nvcc call, with the flag added)."""
    import subprocess

    import tilelang
    from tilelang.contrib import nvcc

    captured: list[str] = []
    original, popen = nvcc.compile_cuda, subprocess.Popen

    class Capturing(popen):
        def communicate(self, *args, **kwargs):
            out, err = super().communicate(*args, **kwargs)
            captured.append((out or b"").decode(errors="replace"))
            return out, err

    def with_ptxas_v(code, target_format="ptx", arch=None, options=None, path_target=None, verbose=False):
        subprocess.Popen = Capturing
        try:
            return original(code, target_format, arch, [*(options or []), "-Xptxas=-v"], path_target, verbose)
        finally:
            subprocess.Popen = popen

    nvcc.compile_cuda = with_ptxas_v
    try:
        tilelang.disable_cache()
        tilelang.compile(case.family.build(case.problem, case.config, "cuda"), target=target, execution_backend="tvm_ffi")
    finally:
        nvcc.compile_cuda = original
        tilelang.enable_cache()
    text = captured[-1] if captured else ""
    return "; ".join(ln.strip() for ln in text.splitlines() if re.search(r"registers|spill", ln))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tlbench.backends.tools.fa_schedule_facts", description=__doc__.splitlines()[0])
    parser.add_argument("--seq", type=int, default=8192)
    parser.add_argument("--ptxas", action="store_true", help="also build with nvcc -Xptxas=-v (registers, spills)")
    args = parser.parse_args(argv)
    from tlbench.suites.flash_attention.problem import FaProblem
    from ..nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    backend = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))
    problem = FaProblem(batch=2, heads=16, seq_q=args.seq, seq_k=args.seq, dim=128, dtype="bfloat16")
    for name, case in _cases(problem).items():
        plan = backend.lower(case).plan
        facts = source_facts(backend.kernel_source(case))
        feats = {k: v for k, v in plan.features.items() if k in ("tma", "wgmma", "mbarrier")}
        print(f"{name}: {case.case_id}\n  plan: {plan.pipeline.get('kind')}, {plan.threads} threads, "
              f"{plan.bytes_per_scope.get('shared.dyn')} B shared, {feats}\n  source: {facts}", flush=True)
        if args.ptxas:
            print(f"  ptxas: {_ptxas(case, backend.target)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
