"""The compile pool's two lanes (harness/measure/compile_pool.py): cases the backend calls
likely cached load on a narrow lane, in the order given; the others build on the wide one.
A test-only backend (``LaneRecordingBackend``) records which thread ran each compile."""

import threading
import time

from tlbench.harness.core.cases import Case
from tlbench.harness.measure.compile_pool import CompilePool
from tile_family import TileConfig, TileProblem


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
    return [Case(TileProblem(1024, 1024, 1024), TileConfig(128, block_n, 32, 128, "auto", s % 5))
            for s, block_n in zip(range(n), [128, 64, 32, 16] * 10)]


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


class SlowToSubmitBackend(LaneRecordingBackend):
    """Its lane hint blocks until ``release`` is set: a prefetch whose submission is slow."""

    def __init__(self):
        super().__init__(set())
        self.release = threading.Event()

    def likely_cached(self, case):
        assert self.release.wait(10), "the test never released the submission"
        return False


def test_a_background_prefetch_returns_at_once_and_an_asked_case_is_compiled_by_the_asker():
    backend, cases = SlowToSubmitBackend(), _cases(6)
    pool = CompilePool(workers=4)
    try:
        thread = pool.prefetch_in_background(backend, cases)
        assert thread.is_alive()  # still submitting: the caller is free
        assert pool.get(backend, cases[3]) == cases[3].case_id
        assert backend.runs == [(cases[3].case_id, threading.current_thread().name)]  # compiled here, not queued
        backend.release.set()
        pool.wait_idle()  # waits for the submissions, then for the compiles
        assert not thread.is_alive()
        assert sorted(case_id for case_id, _ in backend.runs) == sorted(c.case_id for c in cases)  # each once
        assert all(name.startswith("tlbench-compile") for case_id, name in backend.runs[1:])
    finally:
        backend.release.set()
        pool.close()


def test_a_pool_closed_during_a_background_prefetch_starts_nothing_more():
    backend, cases = SlowToSubmitBackend(), _cases(6)
    pool = CompilePool(workers=2)
    thread = pool.prefetch_in_background(backend, cases)
    pool.close()
    backend.release.set()
    thread.join(10)
    assert not thread.is_alive()
    time.sleep(0.1)
    assert len(backend.runs) <= 1  # at most the case whose submission was under way
    assert pool._executor is None or pool._executor._shutdown  # no executor made after close is left running
