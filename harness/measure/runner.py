"""Runs one benchmark item through its backend and says what happened.  No pytest here.

Contract: ``run_item(item, backend, ctx)`` returns an ``Outcome`` (timed, skipped or failed; never
raises for a kernel's faults).  Compile items: ``run_compile_items`` times ``compile_rounds`` cold
rounds round-robin (one outcome per item).  Device items: ``run_device_items`` through the loop of
rounds.py on a ``DeviceSession``; a wrong kernel is never timed.
"""

from __future__ import annotations

import gc
import math
import os
import resource
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..core.backend_api import Backend, Compiled, CompileError
from ..core.cases import Case, Plan
from ..core.record import BenchItem, item_record
from .device_session import DeviceSession, InProcessSession
from ..core.budget import plan_overflow
from .hardware_counter import HardwareCounter, hardware_record
from .instructions import KEY as INSTRUCTIONS
from .interrupt import interrupted_outcome
from .outcome import Outcome, RunContext, failed, gate, interrupted, over_budget
from .rounds import measure_items
from .setup_compile import pay_setup_once

__all__ = ["Outcome", "RunContext", "run_item", "run_compile_items", "run_device_items"]


PHASE_WORDS = {
    "build": "tilelang.compile: lowering + the device compiler (nvcc/bisheng)",
    "lower_and_plan": "lowering only (no device-compiler build: quick scope, or no compiler here)",
    "lower_and_schedule": "lowering + Z3 schedule only (the device build, where one ran, is not in the number)",
}


def compile_method(compiled: Compiled, rounds: int = 1, after_one_build: bool = False) -> str:
    """What a compile item's number is: the phase whose time is the headline, and how often."""
    phase = next((name for name, value in compiled.phases_s.items() if value == compiled.compile_seconds), "")
    if after_one_build:
        return (f"cold lowering only (no device compiler), {rounds} round(s) after one cold build "
                f"(lowering + device compiler, in cold_build_once), caches bypassed (wall clock)")
    return f"cold {PHASE_WORDS.get(phase, phase or 'compile')}, {rounds} round(s), caches bypassed (wall clock)"


def _cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def machine_probe() -> float:
    """CPU seconds of a fixed pure-Python workload: the compile items' witness of machine speed."""
    start = time.process_time()
    total = 0
    for i in range(300_000):
        total += (i * i) % 7
    return time.process_time() - start


def _timed_call(work: Callable[[], Compiled], collector_s: list[float],
                counts: list[tuple[int, int]]) -> tuple[Compiled, float]:
    """``work()`` and its CPU seconds, the collector held out and the heap frozen (a collection
    inside a lowering added 105-136 ms); notes collector seconds and hardware counts."""
    start = time.perf_counter()
    gc.collect()
    gc.freeze()
    collector_s.append(time.perf_counter() - start)
    was_enabled = gc.isenabled()
    gc.disable()
    counter = HardwareCounter.open()
    try:
        start = _cpu_seconds()
        if isinstance(counter, HardwareCounter):
            result, counted = counter.count(work)
            counts.extend([counted] if counted is not None else [])
        else:
            result = work()
        return result, _cpu_seconds() - start  # the whole call: kernel construction, lowering, build
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class _CompileTiming:
    item: BenchItem
    samples: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    probe: list[float] = field(default_factory=list)
    collector: list[float] = field(default_factory=list)  # wall seconds of the collection before each call
    counts: list[tuple[int, int]] = field(default_factory=list)  # hardware instructions of each call (none: no counter)
    last: Compiled | None = None  # the latest timed round's result
    built: tuple[Compiled, float] | None = None  # the one cold build (handle dropped) and its CPU seconds
    plan: Plan | None = None  # the build's plan, read right after it
    built_count: tuple[int, int] | None = None  # the cold build's hardware instructions (total, its child processes)
    failure: Outcome | None = None
    round_s: list[float] = field(default_factory=list)  # wall seconds of each timed round's whole step (for the ETA)


def _compile_step(state: _CompileTiming, backend: Backend, seen: Callable[[], bool] = lambda: False) -> None:
    """One cold call: the one cold build of a backend with ``lower`` (not a sample), else a timed
    round."""
    case = state.item.case
    assert isinstance(case, Case)
    lower = getattr(backend, "lower", None)
    lowering_only = state.built is not None
    try:
        compiled, spent = _timed_call(lambda: lower(case) if lowering_only else backend.compile(case, cold=True),
                                      state.collector, state.counts)
        if not lowering_only and callable(lower) and compiled.handle is not None:
            state.plan = backend.inspect(compiled)
            state.built = (replace(compiled, handle=None), spent)  # the binary is not needed again
            state.built_count = state.counts.pop() if state.counts else None
            return
    except Exception as exc:  # noqa: BLE001 - the item fails with these words
        words = str(exc) if isinstance(exc, CompileError) else f"{type(exc).__name__}: {exc}"
        state.failure = interrupted_outcome(exc, "compile", seen()) or failed("compile", words, exc=exc)
        return
    state.cpu.append(spent)
    state.samples.append(compiled.compile_seconds)
    state.probe.append(machine_probe())
    state.last = compiled


def _compile_outcome(state: _CompileTiming, backend: Backend, rounds: int, interleaved: int, cap_s: float | None = None) -> Outcome:
    if state.failure is not None:
        return state.failure
    item, compiled, built = state.item, state.last, state.built
    assert compiled is not None and isinstance(item.case, Case)
    capped, asked, rounds = len(state.samples) < rounds, rounds, len(state.samples)
    plan = state.plan if built else backend.inspect(compiled)
    over = plan_overflow(plan)
    if over:  # no footprint was declared, or it missed a buffer: the compiled kernel says it cannot launch
        return over_budget(over, item.backend)
    phases = dict(compiled.phases_s)
    if built:
        phases.update({k: v for k, v in built[0].phases_s.items() if k not in phases})  # its device build
    method = compile_method(compiled, rounds, built is not None)
    if capped and cap_s is not None:
        method += f" (its rounds stopped once they took {cap_s:g} CPU seconds: --tlbench-compile-max-seconds)"
    if interleaved > 1:
        method += f"; round-robin over {interleaved} items (each pass one cold round of every item)"
    record = item_record(item, tuple(state.samples), method=method, plan=plan,
                         budget=backend.budget(item.case).to_dict(), compile_phases_s=phases)
    record["cpu_samples_s"] = state.cpu
    record["cpu_method"] = ("CPU seconds (user + system) of each timed round's whole call, this process and its "
                            "compilers, the garbage collector held out of the call")
    record["machine_probe_cpu_s"] = state.probe  # after each round: the machine's speed (see machine_probe)
    record["collector_s"] = state.collector  # before each call, untimed (see _timed_call)
    nice = os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0
    if nice:
        record["process_nice"] = nice  # a compile job yielding its CPUs (harness/measure/cpu_plan.py); not in CPU seconds
    if interleaved > 1:
        record["compile_round_robin"] = interleaved
    record["compile_rounds_asked"] = asked  # the option's rounds: a cap may take fewer (the method's, not this count)
    if cap_s is not None:
        record["compile_max_seconds"] = cap_s
    if capped and cap_s is not None:
        record["compile_rounds_capped_s"] = cap_s
    if state.counts and len(state.counts) == len(state.samples):  # every round counted (harness/measure/count_phase.py)
        record[INSTRUCTIONS] = hardware_record([c[0] for c in state.counts], [c[1] for c in state.counts], state.built_count)
    if built:
        record["cold_build_once"] = {
            "wall_s": built[0].compile_seconds, "cpu_s": built[1], "phases_s": built[0].phases_s,
            "method": f"one cold {PHASE_WORDS['build']}, caches bypassed, before the rounds; not in the samples"}
    return Outcome(status="timed", samples_s=tuple(state.samples), record=record, plan=plan)


def run_compile_items(items: Sequence[BenchItem], backend: Backend, ctx: RunContext,
                      before_step: Callable[[int, int, "float | None"], None] | None = None) -> list[Outcome]:
    """Compile items timed round-robin, one cold call of each per pass (a slow spell then lands on
    one round of many items); one outcome per item; ``before_step`` precedes each call."""
    outcomes: list[Outcome | None] = [gate(item, backend) for item in items]
    states = [_CompileTiming(item) for item, out in zip(items, outcomes) if out is None]
    rounds = max(1, ctx.compile_rounds)
    cap = getattr(ctx.policy, "compile_max_seconds", None)
    try:
        while True:
            pending = [s for s in states if s.failure is None and len(s.samples) < planned_rounds(s, rounds, cap)]
            if not pending:
                break
            for state in pending:
                if before_step is not None:
                    before_step(*round_counts(states, rounds, cap), remaining_seconds(states, rounds, cap), build_words(states))
                ctx.before_cold_compile()
                start, taken = time.perf_counter(), len(state.samples)
                _compile_step(state, backend, ctx.interrupted)
                if len(state.samples) > taken:
                    state.round_s.append(time.perf_counter() - start)
                if state.failure is not None and state.failure.status == "interrupted":
                    break  # no further build starts in an interrupted run
            if any(s.failure is not None and s.failure.status == "interrupted" for s in states):
                for other in states:  # the items not yet done were not measured: interrupted too
                    if other.failure is None and len(other.samples) < planned_rounds(other, rounds, cap):
                        other.failure = interrupted("compile", "the run was interrupted (Ctrl-C) before this item's rounds ended")
                break
    finally:
        gc.unfreeze()  # what _timed_call froze is the collector's again
    timed = iter(states)
    return [out if out is not None else _compile_outcome(next(timed), backend, rounds, len(states), cap) for out in outcomes]


def planned_rounds(state: _CompileTiming, rounds: int, cap_s: float | None = None) -> int:
    """The rounds ``state`` will take: ``rounds``, fewer where its CPU seconds reach ``cap_s``."""
    if state.failure is not None:
        return len(state.samples)
    if cap_s is None or not state.cpu:
        return rounds
    spent = sum(state.cpu)
    if spent >= cap_s:
        return len(state.cpu)
    mean = spent / len(state.cpu)
    return min(rounds, len(state.cpu) + max(1, math.ceil((cap_s - spent) / mean)) if mean > 0 else rounds)


def build_words(states: Sequence[_CompileTiming]) -> str:
    """While items still owe their one cold build: how many were built so far (else "")."""
    built = sum(1 for s in states if s.built is not None)
    if not built or all(s.built is not None or s.samples or s.failure is not None for s in states):
        return ""
    return f"{built} of {len(states)} items' one cold build (lowering + device compiler) done"


def round_counts(states: Sequence[_CompileTiming], rounds: int, cap_s: float | None = None) -> tuple[int, int]:
    """(timed rounds so far, rounds in all): a failed item counts the rounds it took, a capped one those it will take."""
    done = sum(len(s.samples) for s in states)
    total = sum(planned_rounds(s, rounds, cap_s) for s in states)
    return done, max(total, done)


def remaining_seconds(states: Sequence[_CompileTiming], rounds: int, cap_s: float | None = None) -> float | None:
    """Seconds the rounds left take at each item's own mean; None while one has no round yet."""
    left = [s for s in states if len(s.samples) < planned_rounds(s, rounds, cap_s)]
    if any(not s.round_s for s in left):
        return None
    return sum((planned_rounds(s, rounds, cap_s) - len(s.samples)) * (sum(s.round_s) / len(s.round_s)) for s in left)


class InProcessCompileSession:
    """The compile phase's session in this process (``--tlbench-isolation inprocess``)."""

    def __init__(self, backend: Backend, ctx: RunContext) -> None:
        self.backend, self.ctx = backend, ctx

    def setup(self, item: BenchItem, _policy: object, _seed: int) -> float:
        return pay_setup_once(self.backend, item, self.ctx.before_cold_compile)

    def run_compile_items(self, items: Sequence[BenchItem], _policy: object, _rounds: int, _seed: int,
                          progress: Callable[[int, int, "float | None"], None] | None = None) -> list[Outcome]:
        return run_compile_items(items, self.backend, self.ctx, progress)

    def run(self, item: BenchItem, _policy: object, _rounds: int, _seed: int) -> Outcome:
        return run_item(item, self.backend, self.ctx)


def run_device_items(session: DeviceSession, items: Sequence[BenchItem], ctx: RunContext) -> list[Outcome]:
    """Device items in interleaved rounds, or one problem's through ``ctx.search_problem``."""
    if ctx.search_problem is not None and len({i.case.problem for i in items}) == 1:
        return ctx.search_problem(session, items, ctx.policy, ctx.progress)
    return measure_items(session, items, ctx.policy, progress=ctx.progress)


def run_item(item: BenchItem, backend: Backend, ctx: RunContext) -> Outcome:
    """Never raises for a kernel's own faults: they become ``failed`` outcomes."""
    if item.kind != "compile":  # run_compile_items gates a compile item itself
        gated = gate(item, backend)
        if gated is not None:
            return gated
    try:
        if item.kind == "compile":
            return run_compile_items([item], backend, ctx)[0]
        session = InProcessSession(backend, ctx)
        try:
            return run_device_items(session, [item], ctx)[0]
        finally:
            session.close()
    except Exception as exc:  # noqa: BLE001 - recorded, not swallowed: the item fails with this text
        stage = "compile" if item.kind == "compile" else "run"
        return interrupted_outcome(exc, stage, ctx.interrupted()) or failed(stage, f"{type(exc).__name__}: {exc}", exc=exc)
