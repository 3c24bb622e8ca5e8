"""The device worker process: hosts one backend and answers ``WorkerSession``'s requests.

Contract: ``python -m tlbench.harness.measure.worker_main FD`` (messages: worker_messages.py).
``Init`` -> warm-ups, backend, device runtime, then ``Ready``; ``Prefetch`` / ``Pin`` /
``EndPhase`` get no answer; item requests get a ``Done`` (after ``Stage``, ``Progress``, ``Busy``);
``Done.fault``: the worker exits after answering.  It dies with its parent, answers in plain data
and ends with ``os._exit`` (compiler-owned objects have segfaulted at exit).
"""

from __future__ import annotations

import contextlib
import ctypes
import numbers
import os
import signal
import sys
import threading
import time
from importlib import import_module
from multiprocessing.connection import Connection
from typing import Any

from ..core import trace
from ..core.record import plain_data
from . import hang_report
from .busy_watch import BusyWatch
from .stage_reporter import StageReporter
from .worker_messages import (
    Close, CompileItems, Done, EndPhase, Init, Pin, Prefetch, Progress, Raised, Ready, Sample, Setup, Stage, RunItem)


# Before ``Ready``: warm-ups and facts; each failure is left to the first item that meets it.
def warm_device(backend: Any) -> dict[str, Any]:
    """The backend's ``device_info()`` as plain data (starts the runtime early); {} on failure."""
    try:
        return plain_data(backend.device_info() or {})
    except Exception:  # noqa: BLE001 - the first device stage reports it with its item
        return {}


def worker_facts(backend: Any) -> dict[str, Any] | None:
    """The backend's ``worker_facts()`` as plain data (for ``from_worker_facts``), or None."""
    facts = getattr(backend, "worker_facts", None)
    try:
        return plain_data(facts()) if callable(facts) else None
    except Exception:  # noqa: BLE001 - the controller falls back to loading the backend itself
        return None


def warm_up_compile(backend: Any) -> float | None:
    """The backend's ``warm_up_compile()``: wall seconds, or None (none, or it failed)."""
    warm = getattr(backend, "warm_up_compile", None)
    if not callable(warm):
        return None
    start = time.perf_counter()
    try:
        warm()
    except Exception:  # noqa: BLE001 - the setup's compile of an item meets what this missed
        return None
    trace.mark("worker compile warm", role="worker")
    return time.perf_counter() - start


def start_runtime_warm_up(ref: str | None) -> threading.Thread | None:
    if not ref:
        return None
    module, _, name = ref.partition(":")

    def run() -> None:
        with contextlib.suppress(Exception):  # the first device stage reports it with its item
            getattr(import_module(module), name)()
        trace.mark("worker runtime warm", role="worker")

    thread = threading.Thread(target=run, name="tlbench-warm-up", daemon=True)
    thread.start()
    return thread


def _as_interrupted(answer: Any) -> Any:
    from .outcome import Outcome, interrupted

    words = "the run was interrupted (Ctrl-C) while this worker was on it"
    if isinstance(answer, Outcome) and answer.status == "failed":
        return interrupted(answer.stage, f"{words}; the {answer.stage} ended with: {answer.reason}"[:600])
    if isinstance(answer, Raised):
        return interrupted(answer.stage, f"{words}; the {answer.stage} ended with: {answer.words}"[:600])
    if isinstance(answer, list):
        return [_as_interrupted(a) for a in answer]
    return answer


def plain_outcome(outcome: Any) -> Any:
    """The outcome as plain data: compilers' own objects do not pickle safely."""
    from ..core.cases import Plan

    outcome.record = plain_data(outcome.record)
    outcome.samples_s = tuple(float(s) for s in outcome.samples_s)
    outcome.reason, outcome.stage = str(outcome.reason), str(outcome.stage)
    if outcome.plan is not None:
        outcome.plan = Plan(**plain_data(vars(outcome.plan)))  # not asdict: its deep copy makes new tvm objects
    return outcome


def plain_prepared(prepared: Any) -> Any:
    from dataclasses import fields, replace

    from ..core.cases import CheckResult, Plan

    def plain_field(value: object) -> object:
        if isinstance(value, Plan):
            return Plan(**plain_data(vars(value)))
        if isinstance(value, CheckResult):
            return CheckResult(**plain_data(vars(value)))
        if isinstance(value, tuple):
            return tuple(plain_data(list(value)))
        if isinstance(value, (dict, list, str)) or value is None:
            return plain_data(value)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
        return float(value) if isinstance(value, numbers.Real) else value

    return replace(prepared, **{f.name: plain_field(getattr(prepared, f.name))
                                for f in fields(prepared)})


def serve(conn: Connection, watch: Any = None) -> int:
    from ..core.backend_api import backend_from_ref
    from .cache_warmer import CacheWarmer, processes as warmer_processes
    from .compile_pool import CompilePool
    from .cpu_plan import build_cpus_from_environment, pin, usable_cpus
    from .device_session import InProcessSession
    from .interrupt import InterruptWatch
    from .outcome import Outcome, failed, interrupted, traceback_of
    from .runner import RunContext, run_compile_items, run_item
    from .setup_compile import pay_setup_once

    watch = watch if watch is not None else InterruptWatch()
    trace.mark_first("worker imports done", role="worker")
    init = conn.recv()
    assert isinstance(init, Init), init
    sys.path[:] = [p for p in init.sys_path if p] or sys.path  # the parent's, for the warm-up and the backend
    warming = start_runtime_warm_up(init.warm_up)
    backend = backend_from_ref(init.factory, init.options)  # serve has set sys.path from init first
    trace.mark("worker backend loaded", role="worker")
    device_info = warm_device(backend)
    trace.mark("worker device warm", role="worker")
    compile_warm_up_s = warm_up_compile(backend) if init.compile_warm_up else None
    cpus = usable_cpus()
    children = warmer_processes(cpus)
    warmer = CacheWarmer(init.factory, dict(init.options or {}), list(sys.path), children,
                         cpus=frozenset(build_cpus_from_environment() or ()) or None) if children else None
    pool = CompilePool(workers=cpus, warmer_of=lambda _backend: warmer)  # its progress (if any) goes to the worker log
    conn.send(Ready(os.getpid(), device_info, worker_facts(backend), compile_warm_up_s))
    sending = threading.Lock()  # the busy watch's thread sends too

    def send(message: Any) -> None:
        with sending:
            conn.send(message)

    busy = BusyWatch(send)
    busy.start()

    def entered(stage: str) -> None:
        busy.begin(stage)
        send(Stage(stage, pool.pending()))
    kept: list[Any] = []  # compiler-owned objects from outcomes: never released (see the contract)
    phase: Any = None  # the InProcessSession of the current device phase

    try:
        while True:
            try:
                message = conn.recv()
            except EOFError:
                return 0
            except KeyboardInterrupt:  # a Ctrl-C while idle: the session closes this worker when it is done
                continue
            if isinstance(message, Close):
                return 0
            if isinstance(message, Prefetch):
                pool.prefetch_in_background(backend, message.cases)  # the next request is answered meanwhile
                continue
            if isinstance(message, Pin):  # compile work beside device timing: this worker times on its own CPUs
                pin(message.cpus)
                if warmer is not None:
                    warmer.pin(message.build_cpus)
                continue
            if warming is not None:  # the runtime's warm-up ends before any request uses the device
                warming.join()
                warming = None
            reporter = StageReporter(backend, entered)

            def compiled(_backend: Any, case: Any) -> Any:
                reporter.enter("compile")
                return pool.get(backend, case)

            if isinstance(message, EndPhase):
                if phase is not None:
                    phase.close()
                phase = None
                continue
            item = message.item
            try:
                if isinstance(message, Sample):
                    busy.begin("run")
                    if phase is None:
                        answer: Any = Raised("run", f"{item.item_id} was not prepared in this worker")
                    else:
                        phase.backend = reporter
                        try:
                            answer = reporter.device("run", phase.sample, item, message.k, announce=False)  # a sample request is "run"
                        except Exception as exc:  # noqa: BLE001 - sent back as the item's words
                            answer = Raised(reporter.fault[0] if reporter.fault else "run", f"{type(exc).__name__}: {exc}",
                                            traceback_of(exc))
                else:
                    ctx = RunContext(policy=message.policy, compile_rounds=message.compile_rounds, seed=message.seed,
                                     compiled=compiled, before_cold_compile=pool.wait_idle, interrupted=watch)
                    if isinstance(message, Setup) and compile_warm_up_s is not None:  # paid before Ready: the item's modules are loaded now
                        answer = 0.0
                    elif isinstance(message, Setup):  # the untimed first compile, as the in-process path pays it
                        answer = float(pay_setup_once(reporter, item, pool.wait_idle))
                    elif isinstance(message, RunItem):
                        answer = run_item(item, reporter, ctx)
                    elif isinstance(message, CompileItems):
                        def step(done: int, total: int, eta_s: float | None = None, detail: str = "") -> None:
                            reporter.enter("compile")  # restarts the session's compile clock
                            send(Progress(done, total, eta_s, detail))

                        answer = [plain_outcome(o) for o in run_compile_items(item, reporter, ctx, step)]
                        kept.append(answer)
                    else:
                        if phase is None:
                            phase = InProcessSession(reporter, ctx)
                        phase.backend, phase.ctx = reporter, ctx
                        try:
                            answer = phase.prepare(item)
                        except Exception as exc:  # noqa: BLE001 - the item fails with these words
                            answer = failed("prepare", f"{type(exc).__name__}: {exc}", exc=exc)
                        trace.mark("prepared", role="worker", item=item.item_id, pending=pool.pending(), **phase.steps_s)
            except KeyboardInterrupt:  # this worker saw the Ctrl-C: the item's work ends as interrupted, the worker answers
                answer = interrupted(reporter.stage or "compile", "the run was interrupted (Ctrl-C) while this worker was on it")
            if watch.seen:  # a failure met once the run was interrupted is the interrupt's, not the kernel's
                answer = _as_interrupted(answer)
            if isinstance(answer, Outcome):
                kept.append((answer.record, answer.plan))
                if reporter.fault is not None and answer.status == "failed":
                    answer.stage = reporter.fault[0]
                answer = plain_outcome(answer)
            elif not isinstance(answer, (Raised, float, list)):
                kept.append(answer)
                answer = plain_prepared(answer)
            busy.end()
            send(Done(answer, reporter.fault is not None))
            if reporter.fault is not None:  # a poisoned device context is never reused, nor torn down
                _exit(0)
    finally:
        pool.close()


def _exit(code: int) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: list[str]) -> None:
    from .cpu_plan import nice_from_environment, pin_from_environment
    from .interrupt import InterruptWatch

    with contextlib.suppress(OSError, AttributeError):  # not Linux: the socket closing ends it
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the parent
    pin_from_environment()  # a compile job's (or a restarted device worker's) CPUs, before anything starts
    nice_from_environment()  # a compile job beside device timing yields to the device phase's builds
    hang_report.arm()  # a controller that times this worker out reads its stacks first
    watch = InterruptWatch().arm()  # a Ctrl-C reaches this process too: its items end as interrupted
    conn = Connection(int(argv[1]))
    try:
        code = serve(conn, watch)
    except KeyboardInterrupt:  # the run's Ctrl-C outside a request: its own status, never the signal
        code = 128 + signal.SIGINT
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 3
    _exit(code)


if __name__ == "__main__":
    main(sys.argv)
