"""What running one item produced, what a run needs, and the gate before any work.

Contract: ``Outcome`` is ``timed`` (samples, record), ``skipped`` (reason), ``failed`` (stage,
words, ``traceback`` as text: ``traceback_of(exc)``) or ``interrupted``; plain picklable data.
``RunContext``: a session's policy, seed and compile function.  ``gate(item, backend)`` is the
``skipped`` Outcome for an item that must not run here, else None.
"""

from __future__ import annotations

import traceback as tb
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.backend_api import Backend, Compiled, CompileError
from ..core.cases import Case, MeasurePolicy, Plan
from ..core.record import BenchItem
from ..core.space import ALWAYS_SKIP, skip_words


@dataclass
class Outcome:
    status: str  # "timed" | "skipped" | "failed" | "interrupted"
    reason: str = ""
    stage: str = ""
    samples_s: tuple[float, ...] = ()
    record: dict[str, Any] = field(default_factory=dict)
    plan: Plan | None = None
    worker: dict[str, Any] | None = None  # set by a worker process session: pid, restarts, why it restarted
    traceback: str = ""  # a failure raised by an exception: its full traceback (cause chain included), as text


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
    # (session, one problem's items, policy, progress) -> their outcomes: the model-guided search
    # (harness/search/live.py), set by the plugin under --tlbench-search=model; None: every item.
    search_problem: Callable[..., list] | None = None


OVER_BUDGET = "over the on-chip budget"


def over_budget(reason: str, backend: str) -> Outcome:
    """Skipped for the on-chip budget, in the same words before compiling and after lowering."""
    return skipped(f"{OVER_BUDGET}: {reason} on {backend}")


def skipped(reason: str) -> Outcome:
    return Outcome(status="skipped", reason=reason)


TRACEBACK_LIMIT = 60_000  # characters kept of one traceback (its head and its tail: a pass's IR dump can be megabytes)


def traceback_of(exc: BaseException) -> str:
    """``exc``'s full traceback as text (a worker's ``remote_traceback`` where it has one)."""
    remote = getattr(exc, "remote_traceback", None)
    if isinstance(remote, str):
        return remote  # '' where the other process left none (it died by a signal: its own words say so)
    while isinstance(exc, CompileError) and exc.__cause__ is not None:
        exc = exc.__cause__  # a backend's wrapper restates its cause: the cause's traceback is the one that says where
    text = "".join(tb.format_exception(type(exc), exc, exc.__traceback__))
    if len(text) > TRACEBACK_LIMIT:
        half = TRACEBACK_LIMIT // 2
        text = f"{text[:half]}\n... ({len(text) - TRACEBACK_LIMIT} characters left out) ...\n{text[-half:]}"
    return text


def failed(stage: str, reason: str, plan: Plan | None = None, exc: BaseException | None = None) -> Outcome:
    """A failed item; ``exc``: the exception that failed it (its traceback is kept, as text)."""
    return Outcome(status="failed", stage=stage, reason=reason, plan=plan, traceback=traceback_of(exc) if exc is not None else "")


def interrupted(stage: str, reason: str) -> Outcome:
    return Outcome(status="interrupted", stage=stage, reason=reason)


def gate(item: BenchItem, backend: Backend) -> Outcome | None:
    reason = backend.compile_blocker()
    if reason:
        return skipped(f"{item.backend} cannot compile here: {reason}")
    if isinstance(item.case, Case):
        rejected = backend.rejection(item.case)
        if rejected is not None and (rejected.kind in item.skip_on or rejected.kind in ALWAYS_SKIP):
            if rejected.kind == "budget":
                return over_budget(rejected.reason, item.backend)
            return skipped(skip_words(rejected.kind, rejected.reason, item.backend))
    if item.kind == "device":
        reason = backend.device_blocker()
        if reason:
            return skipped(f"{item.backend} device timing unavailable: {reason}")
    return None
