"""Run items in a persistent worker process per device, so a fault or a hang costs one item.

Contract: ``WorkerSession(spec, limits, log_dir, interrupted, board)`` owns one worker
(worker_main.py), started lazily and restarted after a fault.  ``run`` / ``run_compile_items`` /
``setup`` / ``prepare`` never raise for an item's own faults: a death or a stage past its
``Limits`` (``TIMEOUT``, stacks read first) fails the item, with ``worker`` = {pid, restarts,
restarted, ...}.  ``sample`` raises ``WorkerFault`` (``Interrupted``).  ``prefetch``, ``pin``,
``renice`` hold for a restarted worker too.  After an interrupt requests end ``interrupted``; after
``startup_attempts`` failed starts, or ``close()``, they fail at once, stage ``startup``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core import trace
from ..core.cases import MeasurePolicy
from ..core.record import BenchItem
from . import hang_report
from .compile_phase import NoLine
from .cpu_plan import ENV_BUILD_CPUS, ENV_CPUS, ENV_NICE, describe, renice
from .interrupt import Interrupted, died_of_interrupt
from .outcome import interrupted as interrupted_item
from .runner import Outcome
from .worker_channel import WorkerChannel, WorkerDied, WorkerTimedOut
from .worker_messages import (
    Busy, Close, CompileItems, Done, EndPhase, Init, ItemRequest, Pin, Prefetch, Prepare, Progress, Raised, Ready, RunItem,
    Sample, Setup, Stage)
from .worker_spec import STARTUP, Limits, StartAttempts, WorkerFault, WorkerSpec


class WorkerSession:
    def __init__(self, spec: WorkerSpec, limits: Limits | None = None, log_dir: str | None = None,
                 interrupted: Any = lambda: False, board: Any = None) -> None:
        self.spec = spec
        self._board = board  # the run's progress board (harness/pytest_plugin/progress.py), or None
        self._interrupted = interrupted  # () -> bool: the run was interrupted (see the contract)
        self.limits = limits or Limits()
        self.restarts = 0
        self._own_log_dir = log_dir is None  # a temp dir of ours: removed at close
        self._log_dir = Path(log_dir or tempfile.mkdtemp(prefix="tlbench-worker-"))
        self._channel = WorkerChannel()  # the worker process (harness/measure/worker_channel.py)
        self._prefetch: list[Any] = []
        self._prefetch_ok = True
        self._prefetched_here = False  # the current worker process has background compiles
        self._ready = False
        self.stage, self.pending_compiles, self.last_fault, self._incarnation = "", 0, False, 0
        self._progress: Any = None  # run_compile_items' progress callback while one runs
        self._prepared: dict[str, int] = {}  # item id -> the worker incarnation that prepared it
        self.failures: dict[str, dict[str, Any]] = {}  # item id -> worker account of its failure
        self.device_info: dict[str, Any] = {}  # the worker's backend.device_info(), from its "ready"
        self.compile_warm_up_s: float | None = None  # its backend's warm-up compile (wall s), from its "ready"; None: none
        self.worker_facts: dict[str, Any] | None = None  # its backend.worker_facts() (None: it has none)
        self._closed = False  # close() was called: no request starts a worker again
        self._starts = StartAttempts(self.limits.startup_attempts)  # failed starts since the last ready

    @property
    def started(self) -> bool:
        return self._channel.started

    def start_early(self) -> None:
        if not self._channel.started:
            self._start(wait=False)

    def ready_facts(self) -> dict[str, Any] | None:
        """The worker's ``worker_facts`` once ready; None where it has none or could not start."""
        if self._closed or self._starts.exhausted:
            return None
        try:
            self._ensure_ready()
        except (WorkerTimedOut, WorkerDied, OSError) as exc:
            self._starts.failed(self._start_failure_words(exc))
            self._channel.kill()
            return None
        return self.worker_facts

    def _ensure_ready(self) -> None:
        if not self._channel.alive:
            self._channel.kill()
            self._start()
        elif not self._ready:
            self._finish_start()

    def _start(self, wait: bool = True) -> None:
        trace.mark("worker spawn", backend=self.spec.backend)
        env = {**os.environ, **self.spec.env}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        # after a start that died or hung, the next goes without the compile warm-up
        # (a compiler that crashes on it costs the setup's compile, not the worker)
        self._channel.spawn(self._log_dir / f"{self.spec.backend}-worker-{self.restarts}.log", env,
                            Init(list(sys.path), self.spec.factory, dict(self.spec.options), self.spec.warm_up,
                                 self.spec.compile_warm_up and not self._starts.any_failed))
        self.stage = STARTUP
        self._prefetched_here = False
        self._incarnation += 1
        self._ready = False
        if wait:
            self._finish_start()

    def _finish_start(self) -> None:
        self.stage = STARTUP
        trace.mark("awaiting worker ready", backend=self.spec.backend)
        line = self._board.phase(f"start {self.spec.backend}", f"{self.spec.backend} worker start-up") if self._board \
            else NoLine()
        line.note("imports, the backend, its device runtime")
        try:
            ready = self._await(Ready, self.limits.startup_s)
        finally:
            line.end("ready")
        self._starts.succeeded()
        self.device_info = dict(ready.device_info) if isinstance(ready.device_info, dict) else {}
        self.worker_facts = dict(ready.worker_facts) if isinstance(ready.worker_facts, dict) else None
        self.compile_warm_up_s = ready.compile_warm_up_s if isinstance(ready.compile_warm_up_s, float) else None
        trace.mark("worker ready", backend=self.spec.backend)
        self._ready = True
        if self._prefetch and self._prefetch_ok:
            self._channel.send(Prefetch(list(self._prefetch)))
            self._prefetched_here = True

    def _await(self, wanted: type, limit_s: float, policy: MeasurePolicy | None = None) -> Any:
        """Messages until one of type ``wanted``; ``Stage`` restarts the clock with that stage's limit."""
        def on_other(message: Any) -> float | None:
            if isinstance(message, Stage):
                self.stage, self.pending_compiles = message.name, message.background_compiles
                return self.limits.for_stage(self.stage, policy or MeasurePolicy())
            if isinstance(message, Progress) and self._progress is not None:
                self._progress(message.done, message.total, message.eta_s, message.detail)
            if isinstance(message, Busy):
                busy.note(f"{message.stage}: running {message.where}", elapsed_s=message.seconds)
            return None

        busy = self._board.phase(f"busy {self.spec.backend}", f"{self.spec.backend} worker") if self._board else NoLine()
        try:  # the waiting thread writes the progress lines that are due
            return self._channel.receive(wanted, limit_s, on_other, self._board.tick if self._board is not None else None)
        finally:
            busy.end("returned")

    def pin(self, cpus: Any, build_cpus: Any) -> None:
        """This worker onto ``cpus``, its builds onto ``build_cpus``: now and after a restart."""
        self.spec = replace(self.spec, env={**self.spec.env, ENV_CPUS: describe(cpus), ENV_BUILD_CPUS: describe(build_cpus)})
        if self._channel.alive:
            self._channel.send(Pin(sorted(cpus), sorted(build_cpus)))

    def renice(self, nice: int) -> None:
        """This worker (every thread) at nice value ``nice``: now if it runs, and from the start of a restarted one."""
        self.spec = replace(self.spec, env={**self.spec.env, ENV_NICE: str(nice)})
        if self._channel.alive and self._channel.pid is not None:
            renice(nice, self._channel.pid)

    def prefetch(self, cases: list[Any]) -> None:
        known = {c.case_id for c in self._prefetch}
        new = [c for c in cases if c.case_id not in known]
        self._prefetch += new
        if new and self._channel.started and self._ready and self._prefetch_ok:
            self._channel.send(Prefetch(new))
            self._prefetched_here = True

    def run(self, item: BenchItem, policy: MeasurePolicy, compile_rounds: int, seed: int) -> Outcome:
        return self._answer_or_outcome(RunItem(item, policy, compile_rounds, seed), policy)

    def run_compile_items(self, items: list[BenchItem], policy: MeasurePolicy, compile_rounds: int, seed: int,
                          progress: Any = None) -> "list[Outcome] | Outcome":
        self._progress = progress
        try:
            answer = self._request(CompileItems(list(items), policy, compile_rounds, seed), policy)
        finally:
            self._progress = None
        self._blame_unclear(answer)  # the one-by-one retry compiles each in its own item
        if isinstance(answer, list):
            for it, outcome in zip(items, answer):
                outcome.worker = {"pid": self._channel.pid, "restarts": self.restarts, "restarted": False}
                if outcome.status == "failed":
                    self.failures[it.item_id] = outcome.worker
        return answer

    def setup(self, item: BenchItem, policy: MeasurePolicy, seed: int) -> Any:
        return self._request(Setup(item, policy, 1, seed), policy)

    def prepare(self, item: BenchItem, policy: MeasurePolicy, compile_rounds: int, seed: int) -> Any:
        answer = self._answer_or_outcome(Prepare(item, policy, compile_rounds, seed), policy)
        if not isinstance(answer, Outcome):
            self._prepared[item.item_id] = self._incarnation
        return answer

    def sample(self, item: BenchItem, k: int, policy: MeasurePolicy, compile_rounds: int, seed: int) -> Any:
        if self._prepared.get(item.item_id) != self._incarnation or not self._channel.alive:
            again = self.prepare(item, policy, compile_rounds, seed)
            if isinstance(again, Outcome):
                raise WorkerFault(f"[{again.stage}] prepared again after a worker restart: {again.reason}", again.traceback)
        answer = self._answer_or_outcome(Sample(item, k), policy)
        if isinstance(answer, Outcome) and answer.status == "interrupted":
            raise Interrupted(answer.reason)
        if isinstance(answer, Outcome):
            self.failures[item.item_id] = answer.worker or {}
            raise WorkerFault(f"[{answer.stage}] {answer.reason}", answer.traceback)
        if isinstance(answer, Raised):
            self.failures[item.item_id] = {"restarts": self.restarts, "restarted": self.last_fault}
            raise WorkerFault(f"[{answer.stage}] {answer.words}", answer.traceback)
        return answer

    def end_phase(self) -> None:
        if self._channel.alive:
            self._channel.send(EndPhase())
        self._prepared.clear()

    def _answer_or_outcome(self, message: ItemRequest | Sample, policy: MeasurePolicy) -> Any:
        answer = self._request(message, policy)
        if self._blame_unclear(answer):
            retry = self._request(message, policy)
            if isinstance(retry, Outcome):
                retry.worker = {**(retry.worker or {}), "retried_after": answer.reason}
            return retry
        return answer

    def _blame_unclear(self, answer: Any) -> bool:
        """The worker died with background compiles running (the crasher may be any of them): none from now on."""
        if isinstance(answer, Outcome) and answer.worker and answer.worker.get("blame_unclear"):
            self._prefetch_ok = False
            return True
        return False

    def _request(self, message: ItemRequest | Sample, policy: MeasurePolicy) -> Any:
        if self._closed:  # the session ended (an interrupted run's last piece): no new worker
            return self._failed(STARTUP, "the worker session was closed (the run is ending)", None)
        if self._interrupted():  # a Ctrl-C: no new request, no new worker
            return interrupted_item(STARTUP, "the run was interrupted (Ctrl-C) before this item started")
        if self._starts.exhausted:
            return self._failed(STARTUP, self._starts.refusal(self.spec.backend), None, restarted=False, not_started=True)
        self.stage = STARTUP
        self.last_fault = False
        try:
            self._ensure_ready()
            pid = self._channel.pid
            self._channel.send(message)
            self.stage = "run" if isinstance(message, Sample) else "gate"
            done = self._await(Done, self.limits.for_stage(self.stage, policy), policy)
            answer, fault = done.answer, done.fault
        except WorkerTimedOut as exc:
            stage, pid = self.stage, self._channel.pid
            if self._interrupted():
                self._channel.kill()
                return interrupted_item(stage, f"the run was interrupted (Ctrl-C) during {stage}; the worker was ended")
            stacks = hang_report.capture(pid, self._channel.log) if pid is not None else None  # where it was, before the kill
            self._lost(stage, f"no ready within {exc.args[0]:.0f} s")
            where = f"; its main thread was in {stacks.where}" if stacks else ""
            trace.mark("worker timeout", backend=self.spec.backend, stage=stage, where=stacks.where if stacks else None)
            return self._failed(stage, f"TIMEOUT: no answer within {exc.args[0]:.0f} s in stage {stage}; "
                                       f"the worker was killed and restarted{where}", pid, restarted=True, timeout_s=exc.args[0],
                                **({"stacks": stacks.text} if stacks and stacks.text else {}))
        except (WorkerDied, BrokenPipeError, ConnectionResetError):
            stage, pid, background = self.stage, self._channel.pid, self._prefetched_here
            status = self._channel.wait_exit(10)
            how, tail = self._channel.exit_account()
            printed = f"; it printed: {tail}" if tail else ""
            self._channel.kill()
            if self._interrupted() or died_of_interrupt(status):
                return interrupted_item(stage, f"the run was interrupted (Ctrl-C) during {stage}: the worker ended ({how})")
            self._lost(stage, f"died ({how}){printed}")
            failed = self._failed(stage, f"worker process died ({how}) during {stage}{printed}", pid, restarted=True, exit=how)
            if background and stage != STARTUP:
                failed.worker["blame_unclear"] = "background compiles of other items were running"
            return failed
        if fault:
            self._lost("", "")
        if isinstance(answer, Outcome):
            answer.worker = {"pid": pid, "restarts": self.restarts, "restarted": bool(fault)}
            if answer.status == "failed":
                self.failures[message.item.item_id] = answer.worker
        return answer

    def _lost(self, stage: str, start_words: str) -> None:
        self._channel.kill()
        self.restarts += 1
        self.last_fault = True
        if stage == STARTUP:
            self._starts.failed(start_words)

    def _start_failure_words(self, exc: BaseException) -> str:
        if isinstance(exc, WorkerTimedOut):
            return f"no ready within {exc.args[0]:.0f} s"
        if not isinstance(exc, WorkerDied):
            return f"{type(exc).__name__}: {exc}"
        how, tail = self._channel.exit_account()
        return f"died ({how})" + (f"; it printed: {tail}" if tail else "")

    def _failed(self, stage: str, reason: str, pid: int | None, **extra: Any) -> Outcome:
        return Outcome(status="failed", stage=stage, reason=reason, worker={"pid": pid, "restarts": self.restarts, **extra})

    def close(self) -> None:
        self._closed = True
        if self._channel.alive and self._ready:
            try:
                self._channel.send(Close())
            except OSError:
                pass
            else:
                self._channel.wait_exit(30)
        self._channel.kill()
        if self._own_log_dir:  # a failure's last words are already in its record
            shutil.rmtree(self._log_dir, ignore_errors=True)

