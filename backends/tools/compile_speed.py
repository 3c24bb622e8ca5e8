"""How much faster a sweep compiles on all cores than one at a time.

Usage: ``python -m tlbench.backends.tools.compile_speed [--backend nvidia] [--suite suites/test_tiles.py]
[--count 32] [--workers N]``

Takes the first ``count`` legal configs of the suite's SWEEP and compiles them one after
another for its largest problem, then all at once, through the harness's ``CompilePool``
(the same pool the plugin uses before timing), for its smallest problem.  The problems
differ so that neither phase can hit tilelang's in-process kernel cache (the sources
differ only in the shape constants, which do not change the build cost); each phase also
gets its own empty on-disk cache, so both do real builds (lowering + nvcc).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time

import tlbench.backends  # noqa: F401  (torch import guard)
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.measure.compile_pool import CompilePool
from tlbench.harness.core.registry import BackendRegistry
from tlbench.harness.core.cases import Case


def _sweep(path: str):
    spec = importlib.util.spec_from_file_location("suite_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SWEEP


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tlbench.backends.tools.compile_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="nvidia")
    parser.add_argument("--suite", default="suites/test_tiles.py")
    parser.add_argument("--count", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    backend = BackendRegistry.from_entry_points(BackendOptions()).get(args.backend)
    sweep = _sweep(args.suite)
    legal = [c for c in sweep.cases(args.backend, "full") if backend.rejection(c) is None]
    problems = [legal[-1].problem, legal[0].problem]
    if problems[0] == problems[1]:
        raise SystemExit("the suite needs two problem sizes so the phases share no cached kernel")
    configs = [c.config for c in legal if c.problem == problems[0] and Case(problems[1], c.config) in legal][: args.count]
    results = {}
    for phase, problem in (("serial", problems[0]), ("parallel", problems[1])):
        cases = [Case(problem, config) for config in configs]
        with tempfile.TemporaryDirectory(prefix=f"tlbench-{phase}-") as cache:
            os.environ["TILELANG_CACHE_DIR"] = cache
            start = time.perf_counter()
            if phase == "serial":
                for case in cases:
                    backend.compile(case, cold=False)
            else:
                pool = CompilePool(workers=args.workers)
                pool.prefetch(backend, cases)
                for case in cases:
                    pool.get(backend, case)
                pool.close()
            results[phase] = time.perf_counter() - start
        print(f"{phase:8s}: {len(cases)} kernels ({problem.problem_id}) in {results[phase]:.1f} s ({results[phase] / len(cases):.2f} s a kernel)", flush=True)
    print(
        f"parallel compile speedup with {args.workers} workers: {results['serial'] / results['parallel']:.2f}x "
        f"({os.cpu_count()} CPUs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
