"""DIAGNOSIS ONLY: real tilelang builds of the tile sweep's first N kernels in N spawned children,
as the CacheWarmer makes them (a build past 25 s dumps its stack).  usage: python -m
tlbench.backends.tools.child_builds 16.  Contract: one line per build and a total; exit 0.
"""
import multiprocessing, sys, time
from concurrent.futures import ProcessPoolExecutor


def build(sys_path, ref, case):
    import faulthandler, os
    faulthandler.dump_traceback_later(25, exit=False)
    t = time.time()
    from tlbench.harness.measure.cache_warmer import _build
    err = _build(sys_path, ref, {}, case)
    return os.getpid(), round(time.time() - t, 1), err


def main():
    from . import suites_dir

    suites_dir()
    import test_tiles
    n = int(sys.argv[1])
    cases = [c for c in test_tiles.SWEEP.cases("nvidia", "full", load_best=lambda *a, **k: None) if c.config is not None][:n]
    ref = "tlbench.backends.nvidia:NvidiaBackend"
    t = time.time()
    with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn")) as ex:
        futs = [ex.submit(build, list(sys.path), ref, c) for c in cases]
        for c, f in zip(cases, futs):
            print("probe", c.case_id[-40:], f.result(), "at %.1f s" % (time.time() - t), flush=True)
    print("probe: %d builds in %d children: %.1f s" % (n, n, time.time() - t))


if __name__ == "__main__":
    main()
