"""Runs one benchmark item through its backend and says what happened.  No pytest here.

Contract: ``run_item(item, backend, ctx)`` returns an ``Outcome``: ``timed`` with samples
and the record for ``extra_info``, ``skipped`` with a reason (backend unavailable, over the
on-chip budget - scope, bytes needed, capacity -, hardware absent), or ``failed`` with the
compiler's words or the correctness check's.  A compile item is timed here (``compile_rounds``
cold rounds; see ``_run_compile`` for the one cold build a backend with ``lower`` pays once).  A device item goes through the one measurement loop
(harness/measure/rounds.py) on an ``InProcessSession``: availability, budget, hardware,
compile (through the session's ``CompilePool``), check against the reference on fresh
inputs, then timing.  A wrong kernel is never timed.  Many device items at once:
``run_device_items`` (interleaved rounds).
"""

from __future__ import annotations

import resource
import time
from typing import Sequence

from harness.core.backend_api import Backend, Compiled, CompileError
from harness.core.cases import Case
from harness.core.record import BenchItem, item_record
from harness.measure.device_session import DeviceSession, InProcessSession
from harness.measure.outcome import Outcome, RunContext, failed, gate
from harness.measure.rounds import measure_items

__all__ = ["Outcome", "RunContext", "run_item", "run_device_items"]


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
    """CPU time of this process (all threads) and of its reaped children (nvcc, bisheng)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def machine_probe() -> float:
    """CPU seconds of a fixed pure-Python workload (about 50 ms on an idle core): the compile
    items' witness of the machine's speed, as the vendor item is for device items.  It
    exercises no part of the toolchain, so a tilelang or harness change never moves it, while
    a loaded or slower machine (shared cores, SMT contention, clocks) does."""
    start = time.process_time()
    total = 0
    for i in range(300_000):
        total += (i * i) % 7
    return time.process_time() - start


def _run_compile(item: BenchItem, backend: Backend, ctx: RunContext) -> Outcome:
    """``compile_rounds`` cold rounds.  The headline is the wall clock a user waits for; the
    CPU seconds of each round (this process and the compilers it ran) are recorded beside it:
    a busy shared machine stretches wall time but hardly CPU time, so the compile gate judges
    CPU time where both runs have it (harness/results/verdicts.py).

    A backend with ``lower(case)`` (the cold lowering alone) whose first cold compile built a
    device binary pays that build once: it is recorded as ``cold_build_once`` (wall, CPU,
    phases), not as a sample, and the rounds time the cold lowering - what the compiler
    decides, and what changes with tilelang - instead of repeating the device compiler.
    Otherwise every round is a cold ``compile``."""
    assert isinstance(item.case, Case)
    ctx.before_cold_compile()
    lower = getattr(backend, "lower", None)
    samples: list[float] = []
    cpu: list[float] = []
    probe: list[float] = []
    compiled: Compiled | None = None
    built: tuple[Compiled, float] | None = None  # the one cold build and its CPU seconds
    rounds = max(1, ctx.compile_rounds)
    while len(samples) < rounds:
        lowering_only = built is not None
        cpu_start = _cpu_seconds()
        try:
            compiled = lower(item.case) if lowering_only else backend.compile(item.case, cold=True)
        except CompileError as exc:
            return failed("compile", str(exc))
        spent = _cpu_seconds() - cpu_start  # the whole call: kernel construction, lowering, build
        if not lowering_only and callable(lower) and compiled.handle is not None:
            built = (compiled, spent)
            continue
        cpu.append(spent)
        samples.append(compiled.compile_seconds)
        probe.append(machine_probe())
    assert compiled is not None
    plan = backend.inspect(built[0] if built else compiled)
    phases = dict(compiled.phases_s)
    if built:
        phases.update({k: v for k, v in built[0].phases_s.items() if k not in phases})  # its device build
    record = item_record(
        item,
        tuple(samples),
        method=compile_method(compiled, rounds, built is not None),
        plan=plan,
        budget=backend.budget(item.case).to_dict(),
        compile_phases_s=phases,
    )
    record["cpu_samples_s"] = cpu
    record["cpu_method"] = "CPU seconds (user + system) of each timed round's whole call, this process and its compilers"
    record["machine_probe_cpu_s"] = probe  # after each round: the machine's speed (see machine_probe)
    if built:
        record["cold_build_once"] = {
            "wall_s": built[0].compile_seconds,
            "cpu_s": built[1],
            "phases_s": built[0].phases_s,
            "method": f"one cold {PHASE_WORDS['build']}, caches bypassed, before the rounds; not in the samples",
        }
    return Outcome(status="timed", samples_s=tuple(samples), record=record, plan=plan)


def run_device_items(session: DeviceSession, items: Sequence[BenchItem], ctx: RunContext) -> list[Outcome]:
    """Device items measured together in interleaved rounds (or one by one, per the policy)."""
    return measure_items(session, items, ctx.policy, progress=ctx.progress)


def run_item(item: BenchItem, backend: Backend, ctx: RunContext) -> Outcome:
    """Never raises for a kernel's own faults: a launch error, a crash in the check or the
    timing becomes a ``failed`` outcome with the exception's words, so the item stays in
    the JSON and the rest of the suite runs on."""
    gated = gate(item, backend)
    if gated is not None:
        return gated
    try:
        if item.kind == "compile":
            return _run_compile(item, backend, ctx)
        session = InProcessSession(backend, ctx)
        try:
            return run_device_items(session, [item], ctx)[0]
        finally:
            session.close()
    except Exception as exc:  # noqa: BLE001 - recorded, not swallowed: the item fails with this text
        stage = "compile" if item.kind == "compile" else "run"
        return failed(stage, f"{type(exc).__name__}: {exc}")
