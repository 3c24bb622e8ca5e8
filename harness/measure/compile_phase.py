"""The compile phase of a pytest session: a backend's compile items timed round-robin, ``jobs`` at a
time.

Contract: ``CompilePhase(...).outcome(item, phase_items, run, shared=None)`` returns the compile
item's ``Outcome``.  The first call for a backend times all its untimed items after an untimed
``setup``: in ``jobs`` shares balanced by ``cost``, each in a fresh ``make_session(backend, slot)``
on its own thread; else in ``shared``; else ``run(item)`` one by one.  A batch whose worker died is
retried one by one.  ``side_by_side`` phases run on threads beside it; ``count`` adds instruction
counts after the rounds.  Round-robin because a core's slow spells (0.5-3 s) would otherwise cover
all rounds of one item.
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..core import trace
from ..core.record import BenchItem
from .interrupt import is_interrupt
from .outcome import Outcome, failed, interrupted
from .setup_compile import setup_account

SessionFactory = Callable[[str, int], Any]  # (backend name, slot) -> a session with setup/run/close


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
    board: Any = None  # the run's progress board (harness/pytest_plugin/progress.py): a line per backend's phase
    own_workers: Callable[[str], bool] = lambda _backend: False  # time this backend's items in fresh workers even at jobs 1
    # An overlapped run: the other backends whose phases run beside a backend's -> their shared
    # session (None: fresh workers).  Empty: one backend's phase at a time.
    side_by_side: Callable[[str], dict[str, Any]] = lambda _backend: {}
    count: Callable[[str, list[BenchItem], dict[str, Outcome]], None] | None = None  # after the rounds (count_phase.py)
    measured: set[str] = field(default_factory=set)
    stored: dict[str, Outcome] = field(default_factory=dict)
    setup_s: dict[str, float] = field(default_factory=dict)  # per backend: the phase's untimed first compiles (wall)
    setup_parts: dict[str, dict] = field(default_factory=dict)  # per backend: where that went (setup_compile.setup_account)
    seconds: dict[str, float] = field(default_factory=dict)  # "<backend> setup|rounds|count" -> wall seconds of that part
    together: dict[str, tuple[str, ...]] = field(default_factory=dict)  # per backend: the backends timed at the same time

    def parallel(self, backend: str = "") -> bool:
        return self.make_session is not None and (self.jobs > 1 or (bool(backend) and self.own_workers(backend)))

    def outcome(self, item: BenchItem, phase_items: Sequence[BenchItem], run: Callable[[BenchItem], Outcome],
                shared: Any = None) -> Outcome:
        if item.item_id in self.stored:
            return self.stored.pop(item.item_id)
        if item.item_id in self.measured or not (self.parallel(item.backend) or shared is not None):
            return run(item)
        batch = self._untimed(phase_items, item.backend)
        if not any(i.item_id == item.item_id for i in batch):
            return run(item)
        phases = {item.backend: (batch, shared)}
        for backend, other in self.side_by_side(item.backend).items():  # an overlapped run: the other backends' phases now
            rest = self._untimed(phase_items, backend)
            if backend not in phases and rest and (self.parallel(backend) or other is not None):
                phases[backend] = (rest, other)
        self._run(phases)
        return self.stored.pop(item.item_id)

    def _untimed(self, phase_items: Sequence[BenchItem], backend: str) -> list[BenchItem]:
        return [i for i in phase_items if i.kind == "compile" and i.backend == backend and i.item_id not in self.measured]

    def _run(self, phases: dict[str, tuple[list[BenchItem], Any]]) -> None:
        for batch, _shared in phases.values():
            self.measured.update(i.item_id for i in batch)
        if len(phases) > 1:
            names = tuple(phases)
            for backend in names:
                self.together[backend] = tuple(b for b in names if b != backend)
            trace.mark("compile phases side by side", backends=",".join(names))
        lines = {backend: self._line(backend) for backend in phases}
        endings = dict.fromkeys(phases, INTERRUPTED_WORDS)  # what each line ends with unless its phase reaches its end
        try:
            error = None
            if len(phases) == 1:
                ((backend, (batch, shared)),) = phases.items()
                self._rounds(backend, batch, shared, lines[backend], endings)
            else:
                error = self._rounds_side_by_side(phases, lines, endings)
            for backend, (batch, _shared) in phases.items():
                if self.count is not None and endings[backend] == COUNT_PENDING:  # instruction counts: never during a timed round
                    counted = time.perf_counter()
                    self.count(backend, batch, self.stored)
                    self.seconds[f"{backend} count"] = time.perf_counter() - counted
                if endings[backend] == COUNT_PENDING:
                    endings[backend] = ""
            if error is not None:
                raise error
        except BaseException as exc:
            for backend, words in endings.items():
                if words == COUNT_PENDING:
                    endings[backend] = INTERRUPTED_WORDS if isinstance(exc, KeyboardInterrupt) else f"stopped by {type(exc).__name__}"
            raise
        finally:
            for backend, line in lines.items():
                line.end(endings[backend])  # "" : done
                trace.mark("compile phase end", backend=backend)

    def _rounds(self, backend: str, batch: list[BenchItem], shared: Any, line: Any, endings: dict[str, str]) -> None:
        """One backend's setup and rounds; ``endings[backend]``: ``COUNT_PENDING``, or how they
        stopped."""
        trace.mark("compile phase start", backend=backend, items=len(batch), jobs=self.jobs)
        begin = time.perf_counter()
        try:
            if self.parallel(backend):
                self.stored.update(self._time_parallel(backend, batch, line))
            else:
                line.note(SETUP_WORDS)
                account = _timed_setup(shared, batch[0], self.policy, self.seed)
                self.setup_s[backend] = account["total_s"]
                self.setup_parts[backend] = account
                self.stored.update(self._time_batch(shared, batch, 1, _rounds_of(line)))
        except BaseException as exc:
            endings[backend] = INTERRUPTED_WORDS if isinstance(exc, KeyboardInterrupt) else f"stopped by {type(exc).__name__}"
            raise
        stopped = any(self.stored[i.item_id].status == "interrupted" for i in batch if i.item_id in self.stored)
        if not stopped:  # an interrupted phase keeps the count it reached
            rounds = sum(len(self.stored[i.item_id].samples_s) for i in batch if i.item_id in self.stored)
            line.update(rounds, rounds, "")
        self._own_lowering(backend)
        self.seconds[f"{backend} setup"] = self.setup_s.get(backend, 0.0)
        self.seconds[f"{backend} rounds"] = time.perf_counter() - begin - self.setup_s.get(backend, 0.0)
        endings[backend] = INTERRUPTED_WORDS if stopped else COUNT_PENDING
        trace.mark("compile phase rounds done", backend=backend, interrupted=stopped)

    def _rounds_side_by_side(self, phases: dict[str, tuple[list[BenchItem], Any]], lines: dict[str, Any],
                             endings: dict[str, str]) -> BaseException | None:
        """Every backend's ``_rounds`` on a thread; returns the asking backend's error."""
        errors: dict[str, BaseException] = {}

        def work(backend: str) -> None:
            batch, shared = phases[backend]
            try:
                self._rounds(backend, batch, shared, lines[backend], endings)
            except BaseException as exc:  # noqa: BLE001 - raised on the phase's own thread below
                errors[backend] = exc

        self._on_threads(work, list(phases), "tlbench-compile-phase")
        asking = next(iter(phases))
        for backend, exc in errors.items():
            if backend != asking:
                words = f"the {backend} compile phase stopped: {type(exc).__name__}: {exc}"
                for it in phases[backend][0]:
                    self.stored.setdefault(it.item_id, failed("compile", words, exc=exc))
        return errors.get(asking)

    def _own_lowering(self, backend: str) -> None:
        """The setup item's median timed round, beside its setup (what of the setup was that item's own)."""
        account = self.setup_parts.get(backend)
        outcome = self.stored.get(account["item"]) if account and account.get("warm_up_s") is None else None
        if account is not None and outcome is not None and outcome.status == "timed" and outcome.samples_s:
            account["own_lowering_s"] = round(statistics.median(outcome.samples_s), 3)

    def _line(self, backend: str) -> Any:
        if self.board is None:
            return NoLine()
        jobs = f", {self.jobs} at a time" if self.jobs > 1 and self.parallel(backend) else ""
        return self.board.phase(f"compile {backend}", f"compile items {backend} (cold rounds round-robin{jobs})", "rounds")

    def _time_batch(self, session: Any, items: list[BenchItem], jobs: int, report: Callable[..., None] | None = None) -> dict[str, Outcome]:
        try:
            answer = session.run_compile_items(items, self.policy, self.compile_rounds, self.seed, report)
        except Exception as exc:  # noqa: BLE001 - timed one by one below
            answer = failed("compile", f"{type(exc).__name__}: {exc}", exc=exc)
        if isinstance(answer, list) and len(answer) == len(items):
            return {it.item_id: _mark_parallel(out, jobs) for it, out in zip(items, answer)}
        if isinstance(answer, Outcome) and answer.status == "interrupted":  # a Ctrl-C, not a crash: no retry
            return {it.item_id: answer for it in items}
        results: dict[str, Outcome] = {}
        for it in items:
            if any(o.status == "interrupted" for o in results.values()):
                results[it.item_id] = interrupted("compile", "the run was interrupted (Ctrl-C) before this item was timed")
                continue
            try:
                outcome = session.run(it, self.policy, self.compile_rounds, self.seed)
            except Exception as exc:  # noqa: BLE001 - the item fails with these words
                outcome = failed("compile", f"{type(exc).__name__}: {exc}", exc=exc)
            if outcome.status == "timed" and isinstance(outcome.record, dict):
                outcome.record["compile_order"] = ("one by one: the round-robin batch it was in ended when its worker "
                                                   f"died or hung ({getattr(answer, 'reason', answer)!s:.200})")
            results[it.item_id] = _mark_parallel(outcome, jobs)
        return results

    def _on_threads(self, work: Callable[[Any], None], args: list[Any], name: str) -> None:
        threads = [threading.Thread(target=work, args=(arg,), name=f"{name}-{arg}") for arg in args]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(timeout=1.0)
                if self.board is not None:
                    self.board.tick()

    def _time_parallel(self, backend: str, batch: list[BenchItem], line: Any) -> dict[str, Outcome]:
        assert self.make_session is not None
        shares = balanced_shares(batch, min(self.jobs, len(batch)), self.cost)
        jobs = len(shares)
        results: dict[str, Outcome] = {}
        lock = threading.Lock()
        setups: list[dict] = []
        counts, totals = [0] * jobs, [self.compile_rounds * len(share) for share in shares]  # per job: timed rounds
        etas: list[float | None] = [None] * jobs
        line.note(f"{SETUP_WORDS}, in {jobs} job{'s' if jobs != 1 else ''}")

        def work(slot: int) -> None:
            session = self.make_session(backend, slot)
            try:
                account = _timed_setup(session, shares[slot][0], self.policy, self.seed)
                with lock:
                    setups.append(account)

                def report(done: int, total: int, eta_s: float | None = None, detail: str = "") -> None:
                    with lock:
                        counts[slot], totals[slot], etas[slot] = done, total, eta_s
                        done_all, total_all = sum(counts), sum(totals)
                        eta = None if any(e is None for e in etas) else max(etas)  # the jobs run side by side
                    line.update(done_all, total_all, f"job {slot + 1}: {detail}" if detail else "", eta)

                timed = self._time_batch(session, shares[slot], jobs, report)
                with lock:
                    results.update(timed)
            except BaseException as exc:  # noqa: BLE001 - this job's items end with what stopped it
                ended = (interrupted("compile", "the run was interrupted (Ctrl-C) before this item was timed") if is_interrupt(exc)
                         else failed("compile", f"the compile job stopped: {type(exc).__name__}: {exc}", exc=exc))
                with lock:
                    for it in shares[slot]:
                        results.setdefault(it.item_id, ended)
            finally:
                session.close()

        self._on_threads(work, list(range(jobs)), "tlbench-compile-job")
        slowest = max(setups, key=lambda a: a["total_s"], default=None)  # the jobs set up side by side: the slowest is the wait
        self.setup_s[backend] = slowest["total_s"] if slowest else 0.0
        if slowest is not None:
            self.setup_parts[backend] = slowest
        for it in batch:  # a job that died before taking its items leaves them to the serial path's words
            results.setdefault(it.item_id, failed("compile", "the compile phase ended before this item was timed"))
        return results


INTERRUPTED_WORDS = "interrupted"
COUNT_PENDING = "\0count pending"  # a backend's rounds all came back: its counts (if any) are still to run
SETUP_WORDS = "setup: the backend's first compile (imports, solver start-up), untimed"


def _timed_setup(session: Any, item: BenchItem, policy: Any, seed: int) -> dict:
    """What the setup spent (``setup_account``), a worker's ``ready`` awaited first."""
    start = time.perf_counter()
    ready = getattr(session, "ready_facts", None)
    if callable(ready):
        ready()
    started = time.perf_counter() - start
    session.setup(item, policy, seed)
    return setup_account(time.perf_counter() - start, started, item.item_id, warm_up_s=getattr(session, "compile_warm_up_s", None))


def _rounds_of(line: Any) -> Callable[..., None]:
    """A batch's ``progress(done, total, eta_s, detail)`` onto the phase's line (the setup note cleared)."""
    return lambda done, total, eta_s=None, detail="": line.update(done, total, detail, eta_s)


class NoLine:
    """No progress board: a line that reports nowhere."""

    def note(self, *_args: Any, **_kwargs: Any) -> None: ...

    def update(self, *_args: Any, **_kwargs: Any) -> None: ...

    def end(self, *_args: Any) -> None: ...


def balanced_shares(items: Sequence[BenchItem], jobs: int, cost: Callable[[BenchItem], float] = _unit_cost) -> list[list[BenchItem]]:
    """``items`` in ``jobs`` shares of about equal ``cost`` (longest first), each in item order."""
    jobs = max(1, min(jobs, len(items)))
    loads = [0.0] * jobs
    owner: dict[str, int] = {}
    for it in sorted(items, key=cost, reverse=True):
        slot = min(range(jobs), key=lambda j: (loads[j], j))
        loads[slot] += cost(it)
        owner[it.item_id] = slot
    return [[it for it in items if owner[it.item_id] == j] for j in range(jobs)]


def _mark_parallel(outcome: Outcome, jobs: int) -> Outcome:
    if jobs > 1 and outcome.status == "timed" and isinstance(outcome.record, dict):
        outcome.record["compile_jobs"] = jobs
        method = str(outcome.record.get("method", ""))
        outcome.record["method"] = f"{method}; {jobs} compile items timed at a time, one per process"
    return outcome
