"""Does a first lowering in a fresh process carry one-off costs, and does a warm-up take them?

    python -m tlbench.backends.tools.warm_up_probe BACKEND WARM [ENDING]     (from the repo root)

BACKEND: ascend or nvidia.  WARM: ``none``, ``own`` (``warm_up_compile()``) or ``fa`` (one
lowering of the flash-attention case); then three cold lowerings of three quick-scope cases (with
ENDING: of every quick-scope GEMM stage point whose id ends so), in CPU seconds.
Contract: one line per warm-up and per case; bad arguments: the usage line, exit 1.  Recorded in
results/main-job-speed/README.md.
"""

import sys
import time


def _suite_sweeps():
    """(file name, SWEEP) of every built-in suite that declares one."""
    from . import suites_dir
    from .case_selection import UsageProblem, load_sweep

    out = []
    for path in sorted(p for p in suites_dir().glob("*/test_*.py") if (p.parent / "__init__.py").is_file()):
        try:
            out.append((path.name, load_sweep(str(path))))
        except UsageProblem:  # a suite that declares no SWEEP: none of its cases is read here
            continue
    return out


def cpu(work) -> float:
    start = time.process_time()
    work()
    return round(time.process_time() - start, 3)


def main(backend_name: str, warm: str, ending: str = "") -> None:
    import tilelang  # noqa: F401 - before a backend's target: tilelang puts its tvm on the path
    from tlbench.harness.core.backend_api import BackendOptions

    fa_suite = "test_fa_ascend_schedule.py" if backend_name == "ascend" else "test_fa_stages.py"
    wanted = (fa_suite, "test_stages.py", "test_core_pipelining.py")
    cases = {}
    for name, sweep in _suite_sweeps():
        if name in wanted:
            for case in sweep.cases(backend_name, "quick", None, lambda *args: None):
                cases.setdefault(case.case_id, case)
    fa = next(c for k, c in sorted(cases.items()) if k.startswith("fa-") and "bm128-bn128" in k)
    gemm = next(c for k, c in sorted(cases.items()) if k.startswith("gemm-") and "bk32" in k and k.endswith("s2"))
    relu = next(c for k, c in sorted(cases.items()) if k.startswith("gemm_relu-"))
    if backend_name == "ascend":
        from ..ascend.backend import AscendBackend as Backend
    else:
        from ..nvidia.backend import NvidiaBackend as Backend
    backend = Backend(BackendOptions())
    if warm == "own":
        print("warm-up, the backend's own kernels:", cpu(backend.warm_up_compile))
    elif warm == "fa":
        print("warm-up, the flash-attention case:", cpu(lambda: backend.lower(fa)))
    chosen = [("gemm", c) for k, c in sorted(cases.items()) if k.startswith("gemm-") and k.endswith(ending)] if ending else \
        [("flash attention", fa), ("gemm", gemm), ("gemm+relu", relu)]
    for label, case in chosen:
        print(f"{label} ({case.case_id}):", [cpu(lambda: backend.lower(case)) for _ in range(3)])


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("ascend", "nvidia") or sys.argv[2] not in ("none", "own", "fa"):
        sys.exit("usage: python -m tlbench.backends.tools.warm_up_probe ascend|nvidia none|own|fa [ENDING]")
    main(*sys.argv[1:])
