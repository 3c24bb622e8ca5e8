"""What running one item produced, what a run needs, and the gate before any work.

Contract: ``Outcome`` is ``timed`` (samples and the record for ``extra_info``), ``skipped``
(reason), ``failed`` (stage and words) or ``interrupted`` (the run was interrupted while the
item was under way: not a kernel failure, never recorded; harness/measure/interrupt.py); it
is plain picklable data.  ``RunContext`` carries
the policy, seed and the (pooled, cached) compile function of a session.  ``gate(item,
backend)`` returns the ``skipped`` Outcome for an item that must not run here (backend
cannot compile, predicted rejection the suite skips on, over budget, no device), else None.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tlbench.harness.core.backend_api import Backend, Compiled
from tlbench.harness.core.cases import Case, MeasurePolicy, Plan
from tlbench.harness.core.record import BenchItem


@dataclass
class Outcome:
    status: str  # "timed" | "skipped" | "failed" | "interrupted"
    reason: str = ""
    stage: str = ""
    samples_s: tuple[float, ...] = ()
    record: dict[str, Any] = field(default_factory=dict)
    plan: Plan | None = None
    worker: dict[str, Any] | None = None  # set by a worker process session: pid, restarts, why it restarted


@dataclass
class RunContext:
    policy: MeasurePolicy
    compile_rounds: int
    seed: int
    compiled: Callable[[Backend, Case], Compiled]  # cached/pooled compile for device items
    before_cold_compile: Callable[[], None] = lambda: None
    # True once this process saw the run interrupted (an InterruptWatch, harness/measure/interrupt.py):
    # a build that fails after it is interrupted, not failed.
    interrupted: Callable[[], bool] = lambda: False
    # Called by the device measurement loop after each preparation and batch with a
    # rounds.LoopProgress (a progress line; None: silent).
    progress: Callable[[Any], None] | None = None


OVER_BUDGET = "over the on-chip budget"


def over_budget(reason: str, backend: str) -> Outcome:
    """Skipped for the on-chip budget: the same words before compiling (a declared footprint)
    and after lowering (the compiled kernel's buffers, harness/core/budget.py plan_overflow):
    the scope, the bytes against the capacity, the buffers where known, and the backend."""
    return skipped(f"{OVER_BUDGET}: {reason} on {backend}")


def skipped(reason: str) -> Outcome:
    return Outcome(status="skipped", reason=reason)


def failed(stage: str, reason: str, plan: Plan | None = None) -> Outcome:
    return Outcome(status="failed", stage=stage, reason=reason, plan=plan)


def interrupted(stage: str, reason: str) -> Outcome:
    return Outcome(status="interrupted", stage=stage, reason=reason)


def gate(item: BenchItem, backend: Backend) -> Outcome | None:
    reason = backend.compile_blocker()
    if reason:
        return skipped(f"{item.backend} cannot compile here: {reason}")
    if isinstance(item.case, Case):
        rejected = backend.rejection(item.case)
        if rejected is not None and (rejected.kind in item.skip_on or rejected.kind == "budget"):
            return over_budget(rejected.reason, item.backend) if rejected.kind == "budget" else skipped(f"pruned ({rejected.kind}): {rejected.reason}")
    if item.kind == "device":
        reason = backend.device_blocker()
        if reason:
            return skipped(f"{item.backend} device timing unavailable: {reason}")
    return None
