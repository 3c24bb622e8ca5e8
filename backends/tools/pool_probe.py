"""DIAGNOSIS ONLY: do a pool's build children get their work when the parent holds a CUDA context?

``python -m tlbench.backends.tools.pool_probe cuda|nocuda N SECONDS [WORD]``: the compile pool
over N RMSNorm cases (WORD: ids holding it), the parent's CUDA runtime started first or not.
Contract: progress lines on stdout (``probe: ...``), every thread's stack every SECONDS on
stderr; exit 0 once every case loaded.  Recorded in results/h200-parity/README.md.
"""
import os
import sys
import threading
import time
import traceback


def dumper(every: float, start: float) -> None:
    while True:
        time.sleep(every)
        lines = [f"--- stacks at {time.time() - start:.1f} s"]
        names = {t.ident: t.name for t in threading.enumerate()}
        for ident, frame in sys._current_frames().items():
            lines.append(f"thread {names.get(ident, ident)}:")
            lines += [f"  {s.filename}:{s.lineno} {s.name}" for s in traceback.extract_stack(frame)[-8:]]
        kids = os.popen(f"ps --ppid {os.getpid()} -o pid=,etime=,args= | cut -c1-80").read()
        print("\n".join(lines) + "\nchildren:\n" + kids, file=sys.stderr, flush=True)


def main() -> None:
    mode, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    start = time.time()
    if mode == "cuda":
        import torch
        torch.ones(1, device="cuda").sum().item()
        print(f"probe: CUDA runtime up at {time.time() - start:.1f} s", flush=True)
    from . import suites_dir

    suites_dir()
    import test_rmsnorm_onepass as suite
    from ..nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions
    from tlbench.harness.measure.cache_warmer import warmer_for
    from tlbench.harness.measure.compile_pool import CompilePool

    word = sys.argv[4] if len(sys.argv) > 4 else ""
    cases = [c for c in suite.SWEEP.cases("nvidia", "full") if "vendor" not in c.case_id and word in c.case_id][:n]
    backend = NvidiaBackend(BackendOptions({}))
    warmer = warmer_for("tlbench.backends.nvidia.backend:NvidiaBackend", {}, 16)
    pool = CompilePool(workers=16, warmer_of=lambda _backend: warmer)
    threading.Thread(target=dumper, args=(seconds / 3, start), daemon=True).start()
    pool.prefetch(backend, cases)
    print(f"probe: {len(cases)} cases submitted at {time.time() - start:.1f} s", flush=True)
    for case in cases:
        pool.get(backend, case)
        print(f"probe: {case.case_id} loaded at {time.time() - start:.1f} s", flush=True)
    print(f"probe: {mode}: all {len(cases)} in {time.time() - start:.1f} s", flush=True)
    pool.close()


if __name__ == "__main__":
    main()
