"""DIAGNOSIS ONLY: main-thread wakeup lag while the compile pool builds (cold cache) or loads (warm)
kernels on N threads.

usage: python -m tlbench.backends.tools.gil_probe SUITE.py THREADS CASES (TILELANG_CACHE_DIR: a
fresh folder for cold builds).  Contract: one line (loads, seconds, the lag's p50 / p99 / max).
"""
import sys, time, threading
from .case_selection import load_sweep
from tlbench.harness.measure.compile_pool import CompilePool
from tlbench.harness.core.backend_api import backend_from_ref

def main():
    sweep = load_sweep(sys.argv[1])
    threads = int(sys.argv[2])
    cases = [c for c in sweep.cases("nvidia", "full") if c.config is not None][:int(sys.argv[3])]
    b = backend_from_ref("tlbench.backends.nvidia:NvidiaBackend", {})
    b.likely_cached = lambda case: False  # every load on the wide lane
    import tilelang
    pool = CompilePool(workers=threads)
    lags = []
    stop = threading.Event()
    def tick():
        while not stop.is_set():
            s = time.perf_counter(); time.sleep(0.01); lags.append(time.perf_counter() - s - 0.01)
    th = threading.Thread(target=tick); th.start()
    t = time.time()
    pool.prefetch(b, cases)
    pool.get(b, cases[0]); first = time.time() - t
    pool.wait_idle(); total = time.time() - t
    stop.set(); th.join(); pool.close()
    lags.sort()
    print(f"threads={threads}: {len(cases)} loads, first {first:.1f} s, all {total:.1f} s; tick lag p50 {lags[len(lags)//2]*1e3:.1f} ms, p99 {lags[int(len(lags)*.99)]*1e3:.0f} ms, max {lags[-1]*1e3:.0f} ms")

if __name__ == "__main__":
    main()
