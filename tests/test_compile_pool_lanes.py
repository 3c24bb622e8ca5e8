"""The compile pool's two lanes (harness/measure/compile_pool.py): cases the backend calls
likely cached load on a narrow lane, in the order given; the others build on the wide one.
A test-only backend (``LaneRecordingBackend``) records which thread ran each compile."""

import threading
import time

from tlbench.harness.core.cases import Case
from tlbench.harness.measure.compile_pool import CompilePool
from tlbench.backends.kernels.gemm import GemmConfig, GemmProblem


class LaneRecordingBackend:
    name = "lanes"

    def __init__(self, cached: set[str]):
        self.cached = cached
        self.runs: list[tuple[str, str]] = []  # (case id, thread name), in start order
        self.busy = 0
        self.most_busy_loading = 0
        self.lock = threading.Lock()

    def likely_cached(self, case):
        return case.case_id in self.cached

    def compile(self, case, cold):
        with self.lock:
            self.runs.append((case.case_id, threading.current_thread().name))
            if case.case_id in self.cached:
                self.busy += 1
                self.most_busy_loading = max(self.most_busy_loading, self.busy)
        time.sleep(0.02)
        with self.lock:
            if case.case_id in self.cached:
                self.busy -= 1
        return case.case_id


def _cases(n):
    return [Case(GemmProblem(1024, 1024, 1024), GemmConfig(128, 128, 32, 128, "auto", s % 5, group_m=g))
            for s, g in zip(range(n), [None, 4, 8, 16] * 10)]


def test_likely_cached_cases_load_two_at_a_time_in_order_and_the_rest_on_every_thread():
    cases = _cases(12)
    cached = {c.case_id for c in cases[:8]}
    backend = LaneRecordingBackend(cached)
    pool = CompilePool(workers=8)
    pool.prefetch(backend, cases)
    pool.wait_idle()
    assert [pool.get(backend, c) for c in cases] == [c.case_id for c in cases]
    pool.close()
    loads = [(cid, thread) for cid, thread in backend.runs if cid in cached]
    builds = [(cid, thread) for cid, thread in backend.runs if cid not in cached]
    assert all(thread.startswith("tlbench-load") for _, thread in loads)
    assert all(thread.startswith("tlbench-compile") for _, thread in builds)
    assert backend.most_busy_loading <= 2
    assert [cid for cid, _ in loads] == [c.case_id for c in cases[:8]]  # started in the order given


def test_a_backend_without_the_hint_builds_everything_on_the_wide_lane():
    class NoHint(LaneRecordingBackend):
        likely_cached = None

    backend = NoHint(set())
    pool = CompilePool(workers=4)
    pool.prefetch(backend, _cases(6))
    pool.wait_idle()
    pool.close()
    assert len(backend.runs) == 6 and all(t.startswith("tlbench-compile") for _, t in backend.runs)
