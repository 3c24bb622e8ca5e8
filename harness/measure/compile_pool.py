"""Compile every device item of a session concurrently, before and while timing runs.

Contract: ``CompilePool.prefetch(backend, cases)`` submits warm compiles once per (backend, case)
(``prefetch_in_background`` from a thread); ``get(backend, case)`` returns the ``Compiled`` or
raises its ``CompileError``; ``pending()``, ``wait_idle()``, ``close()``.  ``likely_cached`` cases
take a narrow lane; with ``warmer_of`` others are built first in a ``CacheWarmer`` child.
"""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable

from ..core import trace
from ..core.backend_api import Backend, Compiled
from ..core.cases import Case
from .cache_warmer import CacheWarmer
from .cpu_plan import usable_cpus


CHILD_WAIT_S = 600.0  # the longest a load waits for its child's build (a device worker's compile limit)


def _chain(source: Future, target: Future) -> None:
    """``target`` ends as ``source`` does (result, error or cancellation)."""
    def copy(done: Future) -> None:
        if done.cancelled():
            target.cancel()
        elif done.exception() is not None:
            target.set_exception(done.exception())
        else:
            target.set_result(done.result())
    source.add_done_callback(copy)


@dataclass
class CompilePool:
    workers: int = field(default_factory=lambda: usable_cpus())  # the affinity mask's CPUs (taskset counts)
    warm_lane: int = 2  # threads for cases the backend says are likely cached
    # Called with (done, total) as kernels finish (harness/pytest_plugin/progress.py draws it);
    # None: silent.
    progress: Callable[[int, int], None] | None = None
    # Per backend, the child processes that build first (None, or a None answer: threads only).
    warmer_of: Callable[[Backend], CacheWarmer | None] | None = None
    _warmers: dict[str, CacheWarmer | None] = field(default_factory=dict)
    _executor: ThreadPoolExecutor | None = None
    _warm_executor: ThreadPoolExecutor | None = None
    _futures: dict[tuple[str, str], Future] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _done: int = 0
    _closed: bool = False
    _submitters: list[threading.Thread] = field(default_factory=list)  # background prefetches still submitting

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="tlbench-compile")
        return self._executor

    def _lane(self, backend: Backend, case: Case) -> ThreadPoolExecutor:
        likely_cached = getattr(backend, "likely_cached", None)
        cached = callable(likely_cached) and likely_cached(case)  # the hint may be slow: asked before the check
        if self._closed:  # closed meanwhile: no lane is made again
            raise RuntimeError("the compile pool is closed")
        if not cached:
            return self._pool()
        if self._warm_executor is None:
            self._warm_executor = ThreadPoolExecutor(max_workers=max(1, min(self.warm_lane, self.workers)),
                                                     thread_name_prefix="tlbench-load")
        return self._warm_executor

    def _report(self, _future: Future) -> None:
        with self._lock:
            self._done += 1
            done, total = self._done, len(self._futures)
        if done == total:
            trace.mark("compile pool idle", role="pool", kernels=total)
        if self.progress is not None:
            self.progress(done, total)

    def prefetch(self, backend: Backend, cases: list[Case]) -> None:
        trace.mark("prefetch received", role="pool", cases=len(cases), threads=self.workers)
        submitted: list[Future] = []
        for case in cases:
            key = (backend.name, case.case_id)
            with self._lock:
                if self._closed:  # closed while submitting (a background prefetch): nothing more starts
                    break
                if key in self._futures:
                    continue
                future: Future = Future()  # the case's place, taken now; the lane is chosen outside the lock
                self._futures[key] = future
            try:
                _chain(self._submit(backend, case), future)  # the hint and a child's start can be slow
            except BaseException as exc:
                future.set_exception(exc)
                raise
            submitted.append(future)
        if submitted and self.progress is not None:
            with self._lock:
                done, total = self._done, len(self._futures)
            self.progress(done, total)
        for future in submitted:
            future.add_done_callback(self._report)

    def prefetch_in_background(self, backend: Backend, cases: list[Case]) -> threading.Thread:
        """``prefetch`` on a thread, so a worker answers its next request meanwhile."""
        def run() -> None:
            try:
                self.prefetch(backend, cases)
            except RuntimeError:  # an executor shut down under it: the pool was closed, the run ends
                if not self._closed:
                    raise
        thread = threading.Thread(target=run, name="tlbench-prefetch", daemon=True)
        with self._lock:
            self._submitters = [t for t in self._submitters if t.is_alive()] + [thread]
        thread.start()
        return thread

    def _warmer(self, backend: Backend) -> CacheWarmer | None:
        if self.warmer_of is None:
            return None
        with self._lock:
            if self._closed:
                raise RuntimeError("the compile pool is closed")
            if backend.name not in self._warmers:
                self._warmers[backend.name] = self.warmer_of(backend)  # makes an object only: children start on first use
            return self._warmers[backend.name]

    def _submit(self, backend: Backend, case: Case) -> Future:
        lane = self._lane(backend, case)
        warmer = self._warmer(backend) if lane is self._executor else None
        if warmer is None:
            return lane.submit(backend.compile, case, False)
        built = warmer.warm(case)

        def load() -> Compiled:
            with contextlib.suppress(Exception):  # a failed or lost build: the compile meets it
                built.result(timeout=CHILD_WAIT_S)
            return backend.compile(case, False)

        return lane.submit(load)

    def get(self, backend: Backend, case: Case) -> Compiled:
        key = (backend.name, case.case_id)
        mine = False
        with self._lock:
            future = self._futures.get(key)
            if future is None and any(t.is_alive() for t in self._submitters):
                future, mine = Future(), True  # a background prefetch may reach this case: it finds it taken
                self._futures[key] = future
        if future is None:
            return backend.compile(case, False)
        if mine:
            try:
                future.set_result(backend.compile(case, False))
            except BaseException as exc:  # noqa: BLE001 - re-raised below, as a pooled compile's would be
                future.set_exception(exc)
            future.add_done_callback(self._report)
        return future.result()

    def pending(self) -> int:
        with self._lock:
            return sum(1 for f in self._futures.values() if not f.done())

    def wait_idle(self) -> None:
        with self._lock:
            submitters = list(self._submitters)
        for thread in submitters:  # every case submitted first: idle means none is still to come
            thread.join()
        with self._lock:
            pending = [f for f in self._futures.values() if not f.done()]
        if pending:
            wait(pending)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        for executor in (self._executor, self._warm_executor):  # queued loads go first: none waits on a child then
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            warmers = list({id(w): w for w in self._warmers.values() if w is not None}.values())  # one may serve several backends
        for warmer in warmers:
            warmer.close()
        for executor in (self._executor, self._warm_executor):
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
        self._executor = self._warm_executor = None
