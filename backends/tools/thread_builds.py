"""DIAGNOSIS ONLY: do kernel builds overlap on threads of one process?  Four cold builds, serially,
on four threads or in two spawned processes.  usage: python -m tlbench.backends.tools.thread_builds
serial|threads|procs.  Contract: prints one line (mode, wall time, each build's seconds, load).
"""
import sys, time, os
from concurrent.futures import ThreadPoolExecutor, ProcessPoolExecutor
import multiprocessing as mp

def cases():
    from .case_selection import load_sweep, select
    from tlbench.harness.results.export.best_configs import load_best
    return [c for c in select([load_sweep("suites/gemm/test_tiles.py")], "2048x2048 and t128", (), load_best) if getattr(c,"kernel","")!="vendor"][:4]
def build(i):
    from ..nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions
    b = NvidiaBackend(BackendOptions({}))
    c = cases()[i]
    t = time.time(); b.compile(c, True); return time.time() - t
if __name__ == "__main__":
    mode = sys.argv[1]
    build(0)  # warm imports
    t = time.time()
    if mode == "serial":
        r = [build(i) for i in range(4)]
    elif mode == "threads":
        with ThreadPoolExecutor(4) as ex: r = list(ex.map(build, range(4)))
    else:
        with ProcessPoolExecutor(2, mp_context=mp.get_context("spawn")) as ex: r = list(ex.map(build, range(4)))
    print(mode, f"wall {time.time()-t:.1f}s", [f"{x:.1f}" for x in r], "load", open('/proc/loadavg').read().split()[:3])
