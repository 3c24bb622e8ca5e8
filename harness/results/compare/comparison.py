"""What comparing two runs produces, all in one ``RunComparison``.

Contract: frozen dataclasses (``ItemComparison`` per item and metric, ``Drift``, ``ModelChange``,
shifts, testbeds, method mismatches); ``RunComparison`` answers the gate (``regressions``,
``has_regression``, ``exit_reason()``).  ``CompareError``: inputs that cannot be compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from . import verdict_words, verdicts
from .method_match import MethodMismatch
from ..files.store import Testbed
from .judgement import Judgement, Thresholds, Verdict


class CompareError(ValueError):
    """Two inputs that cannot be compared; ``str()`` is one line saying why."""


@dataclass(frozen=True)
class ItemKey:
    suite: str
    backend: str
    kind: str
    case_id: str


@dataclass(frozen=True)
class ItemComparison:
    """``decided`` is the judgement of the rule that decided (harness/results/compare/compare_rules.py):
    its verdict is ``verdict`` and its reason the item's why (they cannot disagree: checked at
    construction).  ``time`` is the rank test on the raw samples and ``relative`` (when a
    reference exists in both runs) on the samples divided by that run's reference, both shown."""

    key: ItemKey
    problem: str
    verdict: Verdict
    gates: bool  # True: this verdict counts towards the exit code
    decided_by: str | None = None  # TIME | VENDOR_RATIO | RUN_RATIO, for SAME/FASTER/SLOWER/NOISY
    time: Judgement | None = None
    relative: Judgement | None = None
    reference: str = ""  # what ``relative`` divides by
    min_effect: float = 0.0
    detail: str = ""
    rule: str = "rank test"  # which rule decided (harness/results/compare/verdicts.py)
    metric: str = "time"  # what was judged: time, or instructions (harness/results/compile_gate/count_verdicts.py)
    decided: Judgement | None = None  # the deciding judgement (None: the rank test, ``relative`` or else ``time``)

    def __post_init__(self) -> None:
        decisive = self.decisive
        if decisive is not None and decisive.verdict != self.verdict and self.verdict not in (Verdict.NEW, Verdict.MISSING, Verdict.FAILED):
            raise ValueError(f"{self.key.case_id}: verdict {self.verdict.value} beside a judgement that says {decisive.verdict.value}")

    @property
    def decisive(self) -> Judgement | None:
        if self.decided is not None:
            return self.decided
        return self.relative if self.relative is not None else self.time

    @property
    def is_regression(self) -> bool:
        return self.gates and verdict_words.is_regression(self.verdict)


@dataclass(frozen=True)
class Drift:
    """How much a whole group of items (one backend, kind and suite) moved together:
    the geometric mean of their median ratios.  Shown, never gated: it cannot be told
    apart from the machine's state (clocks, load) - which is why items are judged
    relative to a reference of their own run."""

    suite: str
    backend: str
    kind: str
    items: int
    change: float
    vendor_change: float | None  # the vendor item's own change, when there is one
    spread: float | None = None  # robust SD of the items' changes relative to their reference
    noise_floor: float = 0.0  # a relative change this small is not resolved (NOISE_K x spread)


@dataclass(frozen=True)
class ModelChange:
    """An item whose modeled cycles per core (Ascend Z3 schedule model) differ between the
    runs.  The model is deterministic, so any change is a change of schedule; it is shown,
    never gated, and never mixed with times."""

    key: ItemKey
    base_cycles: float
    new_cycles: float
    base_ii: Any = None
    new_ii: Any = None


@dataclass(frozen=True)
class PlanVerdict:
    """One case's plan and schedule model, base vs new (plan_verdicts.py): ``verdict``, and
    ``changes`` in words, before -> after.  Compiler decisions and model numbers, never times."""

    key: ItemKey
    verdict: str
    gates: bool
    changes: tuple[str, ...] = ()
    model: tuple[str, ...] = ()  # the model numbers that moved, in words


@dataclass(frozen=True)
class TestbedPair:
    backend: str
    base: Testbed
    new: Testbed

    @property
    def differences(self) -> list[str]:
        return self.base.differences(self.new)


@dataclass(frozen=True)
class RunComparison:
    base_path: str
    new_path: str
    thresholds: Thresholds
    items: tuple[ItemComparison, ...]
    testbeds: tuple[TestbedPair, ...]
    method_mismatches: tuple[MethodMismatch, ...] = ()  # compared anyway, on request (method_match.py)
    drifts: tuple[Drift, ...] = ()
    model_changes: tuple[ModelChange, ...] = ()
    notes: tuple[str, ...] = ()
    shifts: tuple[verdicts.RunShift, ...] = ()  # whole-run moves (verdicts.run_shift)
    plans: tuple[PlanVerdict, ...] = ()  # plan and schedule-model verdicts (plan_verdicts.py)

    @property
    def regressions(self) -> list[ItemComparison]:
        return [i for i in self.items if i.is_regression]

    @property
    def gating_shifts(self) -> list[verdicts.RunShift]:
        return [s for s in self.shifts if s.gates]

    @property
    def gating_plans(self) -> list[PlanVerdict]:
        return [p for p in self.plans if p.gates]

    @property
    def has_regression(self) -> bool:
        return bool(self.regressions) or bool(self.gating_shifts) or bool(self.gating_plans)

    @property
    def missing(self) -> list[ItemComparison]:
        """Items of the base not measured in the new run that gate (not accepted)."""
        return [i for i in self.items if i.verdict is Verdict.MISSING and i.gates]

    def exit_reason(self) -> str:
        """One line: why the gate passes or fails."""
        if not self.has_regression:
            return "no regression"
        counts: dict[str, int] = {}
        for item in self.regressions:
            counts[item.verdict.value] = counts.get(item.verdict.value, 0) + 1
        parts = [f"{n} {v}" for v, n in sorted(counts.items())]
        if self.gating_shifts:
            parts.append(f"{len(self.gating_shifts)} whole-run shift{'s' if len(self.gating_shifts) != 1 else ''}")
        reason = "regression: " + ", ".join(parts)
        if self.missing:
            reason += f" ({len(self.missing)} items of the base were not measured; --accept-missing accepts a narrower run)"
        return reason

    @property
    def compared(self) -> int:
        """Items with samples on both sides."""
        return sum(1 for i in self.items if i.time is not None)

    @property
    def testbed_mismatches(self) -> list[TestbedPair]:
        return [t for t in self.testbeds if t.differences]

    def counts(self) -> dict[Verdict, int]:
        return {v: sum(1 for i in self.items if i.verdict is v) for v in Verdict}
