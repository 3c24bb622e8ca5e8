"""Runs one benchmark item through its backend and says what happened.  No pytest here.

Contract: ``run_item(item, backend, ctx)`` returns an ``Outcome``: ``timed`` with samples
and the record for ``extra_info``, ``skipped`` with a reason (backend unavailable, over the
on-chip budget - scope, bytes needed, capacity -, hardware absent), or ``failed`` with the
compiler's words or the correctness check's.  Order for a device item: availability,
budget, hardware, compile (through the session's ``CompilePool``), check against the
reference on fresh inputs, then timing.  A wrong kernel is never timed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from harness.core.backend_api import Backend, Compiled, CompileError
from harness.core.record import BenchItem, item_record
from harness.core.cases import Case, MeasurePolicy, Plan, VendorCase


@dataclass
class Outcome:
    status: str  # "timed" | "skipped" | "failed"
    reason: str = ""
    stage: str = ""
    samples_s: tuple[float, ...] = ()
    record: dict[str, Any] = field(default_factory=dict)
    plan: Plan | None = None


@dataclass
class RunContext:
    policy: MeasurePolicy
    compile_rounds: int
    seed: int
    compiled: Callable[[Backend, Case], Compiled]  # cached/pooled compile for device items
    before_cold_compile: Callable[[], None] = lambda: None


def _skip(reason: str) -> Outcome:
    return Outcome(status="skipped", reason=reason)


def _gate(item: BenchItem, backend: Backend) -> Outcome | None:
    reason = backend.available()
    if reason:
        return _skip(f"{item.backend} cannot compile here: {reason}")
    if isinstance(item.case, Case):
        rejected = backend.rejection(item.case)
        if rejected is not None and (rejected.kind in item.skip_on or rejected.kind == "budget"):
            prefix = "over the on-chip budget" if rejected.kind == "budget" else f"pruned ({rejected.kind})"
            return _skip(f"{prefix}: {rejected.reason}")
    if item.kind == "device":
        reason = backend.device_unavailable()
        if reason:
            return _skip(f"{item.backend} device timing unavailable: {reason}")
    return None


def _run_compile(item: BenchItem, backend: Backend, ctx: RunContext) -> Outcome:
    assert isinstance(item.case, Case)
    ctx.before_cold_compile()
    samples: list[float] = []
    compiled: Compiled | None = None
    for _ in range(max(1, ctx.compile_rounds)):
        try:
            compiled = backend.compile(item.case, cold=True)
        except CompileError as exc:
            return Outcome(status="failed", stage="compile", reason=str(exc))
        samples.append(compiled.compile_seconds)
    assert compiled is not None
    plan = backend.inspect(compiled)
    record = item_record(
        item,
        tuple(samples),
        method="cold build, caches bypassed (wall clock)",
        plan=plan,
        budget=backend.budget(item.case).to_dict(),
        compile_phases_s=compiled.phases_s,
    )
    return Outcome(status="timed", samples_s=tuple(samples), record=record, plan=plan)


def _run_device(item: BenchItem, backend: Backend, ctx: RunContext) -> Outcome:
    plan = None
    budget = None
    if isinstance(item.case, VendorCase):
        runnable: Any = item.case
        problem = item.case.problem
    else:
        try:
            runnable = ctx.compiled(backend, item.case)
        except CompileError as exc:
            return Outcome(status="failed", stage="compile", reason=str(exc))
        plan = backend.inspect(runnable)
        over = [
            f"{scope} needs {used} B, limit {plan.limits[scope]} B"
            for scope, used in plan.bytes_per_scope.items()
            if plan.limits.get(scope) and used > plan.limits[scope]
        ]
        if over:  # the compiled kernel, not our estimate, says it cannot launch
            return _skip(f"over the on-chip budget (as compiled): {'; '.join(over)}")
        budget = backend.budget(item.case).to_dict()
        problem = item.case.problem
    inputs = backend.make_inputs(problem, ctx.seed)
    check = backend.check(runnable, inputs)
    if not check.ok:
        return Outcome(
            status="failed",
            stage="check",
            reason=f"wrong result: {check.detail}; max abs err {check.max_abs_err:.4g}",
            plan=plan,
        )
    device = backend.measure(runnable, inputs, ctx.policy)
    record = item_record(
        item, device.samples_s, method=device.method, plan=plan, budget=budget, check=check, device=device, seed=ctx.seed
    )
    return Outcome(status="timed", samples_s=device.samples_s, record=record, plan=plan)


def run_item(item: BenchItem, backend: Backend, ctx: RunContext) -> Outcome:
    """Never raises for a kernel's own faults: a launch error, a crash in the check or the
    timing becomes a ``failed`` outcome with the exception's words, so the item stays in
    the JSON and the rest of the suite runs on."""
    gated = _gate(item, backend)
    if gated is not None:
        return gated
    try:
        if item.kind == "compile":
            return _run_compile(item, backend, ctx)
        return _run_device(item, backend, ctx)
    except Exception as exc:  # noqa: BLE001 - recorded, not swallowed: the item fails with this text
        stage = "compile" if item.kind == "compile" else "run"
        return Outcome(status="failed", stage=stage, reason=f"{type(exc).__name__}: {exc}")
