"""The compile phase of a pytest session: a backend's compile items timed ``jobs`` at a time.

Contract: ``CompilePhase(jobs, make_session, policy, compile_rounds, seed)``;
``outcome(item, phase_items, run)``
returns the compile item's ``Outcome``.  With ``jobs <= 1`` it is ``run(item)`` (the caller's
serial path, unchanged).  Otherwise the first call for an item of a backend times every
item of ``phase_items`` with that backend that has not been timed yet: ``jobs`` sessions
from ``make_session(backend, slot)`` (each its own worker process, so every compile has a
core and its own CPU-second accounting), each paying the backend's untimed first compile
once (``session.setup``) before it takes items off one shared queue (longest expected
first: ``cost(item)``) and times them one after another (``session.run``, the same
per-item rounds as the serial path).  The outcomes are stored and each later call hands
its item the stored one; the sessions are closed when the phase ends.  Each timed outcome
records ``compile_jobs`` (how many compile items ran at a time) and says so in its
``method``, so a reader never mistakes a parallel run's number for a serial one.  An item
the phase did not hold (asked for again, or not in ``phase_items``) is timed through
``run``.  One instance per pytest session (kept in the plugin's state): no global state.

Why it is sound to time compiles side by side: the compile gate judges CPU seconds divided
by a machine probe timed after every round in the same process (harness/measure/runner.py),
and CPU seconds do not count the time a process waits for a core.  A parallel run is still
a different condition (shared caches, lower turbo clocks), which is why the record names it.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from harness.core.record import BenchItem
from harness.measure.outcome import Outcome, failed

SessionFactory = Callable[[str, int], Any]  # (backend name, slot) -> a session with setup/run/close


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask: ``taskset`` and cgroups count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_jobs(text: str, cpus: int, in_xdist_worker: bool, isolated: bool) -> int:
    """``--tlbench-compile-jobs``: a positive integer, or ``auto`` = half of ``cpus`` where
    there are 8 or more (a compile uses about one core; the other half is left to the device
    worker's background builds and the system), else 1.  ``auto`` is 1 in a pytest-xdist
    worker (its siblings share the host) and without worker processes (``isolated`` False)."""
    text = str(text).strip().lower()
    if text == "auto":
        if in_xdist_worker or not isolated or cpus < 8:
            return 1
        return cpus // 2
    try:
        jobs = int(text)
    except ValueError:
        raise ValueError(f"--tlbench-compile-jobs takes a positive integer or 'auto', got {text!r}") from None
    if jobs < 1:
        raise ValueError(f"--tlbench-compile-jobs must be >= 1 (1 times compile items one by one), got {jobs}")
    if jobs > 1 and not isolated:
        raise ValueError("--tlbench-compile-jobs > 1 needs worker processes: drop --tlbench-isolation inprocess, or use 1")
    return jobs


def _unit_cost(_item: BenchItem) -> float:
    return 1.0


@dataclass
class CompilePhase:
    jobs: int = 1
    make_session: SessionFactory | None = None
    policy: Any = None  # what session.setup / session.run take after the item
    compile_rounds: int = 1
    seed: int = 0
    cost: Callable[[BenchItem], float] = _unit_cost
    on_progress: Callable[[int, int], None] | None = None
    measured: set[str] = field(default_factory=set)
    stored: dict[str, Outcome] = field(default_factory=dict)
    setup_s: dict[str, float] = field(default_factory=dict)  # per backend: the phase's untimed first compiles (wall)

    def parallel(self) -> bool:
        return self.jobs > 1 and self.make_session is not None

    def outcome(self, item: BenchItem, phase_items: Sequence[BenchItem], run: Callable[[BenchItem], Outcome]) -> Outcome:
        if item.item_id in self.stored:
            return self.stored.pop(item.item_id)
        if not self.parallel() or item.item_id in self.measured:
            return run(item)
        batch = [i for i in phase_items if i.kind == "compile" and i.backend == item.backend and i.item_id not in self.measured]
        if not any(i.item_id == item.item_id for i in batch):
            return run(item)
        self.measured.update(i.item_id for i in batch)
        self.stored.update(self._time_all(item.backend, batch))
        return self.stored.pop(item.item_id)

    def _time_all(self, backend: str, batch: list[BenchItem]) -> dict[str, Outcome]:
        assert self.make_session is not None
        todo: queue.Queue[BenchItem] = queue.Queue()
        for it in sorted(batch, key=self.cost, reverse=True):
            todo.put(it)
        jobs = min(self.jobs, len(batch))
        results: dict[str, Outcome] = {}
        lock = threading.Lock()
        setups: list[float] = []

        def work(slot: int) -> None:
            session = self.make_session(backend, slot)
            try:
                start = time.perf_counter()
                session.setup(batch[0], self.policy, self.seed)
                with lock:
                    setups.append(time.perf_counter() - start)
                while True:
                    try:
                        it = todo.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        outcome = session.run(it, self.policy, self.compile_rounds, self.seed)
                    except Exception as exc:  # noqa: BLE001 - the item fails with these words
                        outcome = failed("compile", f"{type(exc).__name__}: {exc}")
                    with lock:
                        results[it.item_id] = _mark_parallel(outcome, jobs)
                        done = len(results)
                    if self.on_progress is not None:
                        self.on_progress(done, len(batch))
            finally:
                session.close()

        threads = [threading.Thread(target=work, args=(slot,), name=f"tlbench-compile-job-{slot}") for slot in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.setup_s[backend] = max(setups, default=0.0)
        for it in batch:  # a job that died before taking its items leaves them to the serial path's words
            results.setdefault(it.item_id, failed("compile", "the compile phase ended before this item was timed"))
        return results


def _mark_parallel(outcome: Outcome, jobs: int) -> Outcome:
    if jobs > 1 and outcome.status == "timed" and isinstance(outcome.record, dict):
        outcome.record["compile_jobs"] = jobs
        method = str(outcome.record.get("method", ""))
        outcome.record["method"] = f"{method}; {jobs} compile items timed at a time, one per process"
    return outcome
