"""The verdict rule: is one set of samples SLOWER, FASTER, NOISY or the SAME as another?

Contract (pure): ``judge(base, new, min_effect, alpha, ...)`` returns a ``Judgement``: SLOWER /
FASTER where Mann-Whitney U gives p < alpha and the median moved by the minimum effect and the
noise floor; NOISY where it moved without that; SAME under the minimum effect.  ``Thresholds``;
``Verdict`` (verdict_words.py) re-exported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence
from ...core.stats import median, sorted_samples
from .mann_whitney import mann_whitney_p
from .verdict_words import Verdict  # noqa: F401  (re-exported: the verdict words live in one table)




TIME = "time"
VENDOR_RATIO = "vendor-ratio"
RUN_RATIO = "run-ratio"
@dataclass(frozen=True)
class Thresholds:
    """``min_effect`` (0.05 = 5 % of the median; ``min_effect_by_suite`` per suite), ``alpha``,
    and the plan verdicts': ``model_threshold``, ``gate_model``, ``gate_plan``."""

    min_effect: float = 0.05
    alpha: float = 0.05
    min_effect_by_suite: Mapping[str, float] = field(default_factory=dict)
    model_threshold: float = 0.01
    gate_model: bool = True
    gate_plan: bool = False

    def __post_init__(self) -> None:
        for name, value in [("min_effect", self.min_effect), ("model_threshold", self.model_threshold),
                            *self.min_effect_by_suite.items()]:
            if not 0 <= value < 10:
                raise ValueError(f"min effect for {name} must be a fraction like 0.05, got {value}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha}")

    def min_effect_for(self, suite: str) -> float:
        return self.min_effect_by_suite.get(suite, self.min_effect)


@dataclass(frozen=True)
class Judgement:
    """One way of judging an item: on its times, or on its times relative to a reference
    measured in the same run (``VENDOR_RATIO``, ``RUN_RATIO``)."""

    basis: str  # TIME | VENDOR_RATIO | RUN_RATIO
    base_median: float
    new_median: float
    change: float  # new / base - 1: +0.10 is 10 % slower
    p_value: float | None  # None: too few samples to test at all
    verdict: Verdict
    reason: str


def median_of(values: Sequence[float]) -> float:
    """``summarize(values).median`` (same checks, same value) without the rest of a summary."""
    return median(sorted_samples(values))


def _smallest_p(n_base: int, n_new: int) -> float:
    """The smallest two-sided p-value the exact rank test can give for these sample counts."""
    return min(1.0, 2.0 / math.comb(n_base + n_new, n_base))


def _rank_test(base: Sequence[float], new: Sequence[float]) -> float | None:
    if len(base) < 2 or len(new) < 2:
        return None
    if len(set(base)) == 1 and set(base) == set(new):
        return 1.0
    p_value = mann_whitney_p(base, new)  # scipy's mannwhitneyu, without its per-call cost (mann_whitney.py)
    # With ties scipy falls back to the normal approximation, which for a handful of samples
    # can go below what any arrangement of them allows; never report less than that.
    return max(p_value, _smallest_p(len(base), len(new)))


def judge(
    base: Sequence[float],
    new: Sequence[float],
    min_effect: float,
    alpha: float,
    basis: str = TIME,
    noise_floor: float = 0.0,
    noise_source: str = "",
) -> Judgement:
    """SLOWER / FASTER: p < alpha AND the median moved by ``min_effect`` AND by ``noise_floor``;
    NOISY: it moved that much without the rest; SAME: under ``min_effect``, whatever the test
    says (a real but small change is not a regression)."""
    base_median, new_median = median_of(base), median_of(new)
    if base_median > 0:
        change = new_median / base_median - 1
    else:
        change = 0.0 if new_median == 0 else math.inf
    p_value = _rank_test(base, new)
    big = abs(change) >= min_effect
    significant = p_value is not None and p_value < alpha
    moved = f"median {change:+.1%}"
    if big and significant and abs(change) < noise_floor:
        verdict = Verdict.NOISY
        reason = f"{moved}, p={p_value:.3g}, but inside the ±{noise_floor:.0%} noise floor ({noise_source})"
    elif big and significant:
        verdict = Verdict.SLOWER if change > 0 else Verdict.FASTER
        reason = f"{moved}, p={p_value:.3g} < {alpha:g}"
    elif big:
        verdict = Verdict.NOISY
        if p_value is None or _smallest_p(len(base), len(new)) >= alpha:
            reason = f"{moved}, but {len(base)} vs {len(new)} samples are too few for p < {alpha:g}"
        else:
            reason = f"{moved}, but p={p_value:.3g} >= {alpha:g}: the samples overlap"
    else:
        verdict = Verdict.SAME
        tested = "" if p_value is None else f", p={p_value:.3g}"
        reason = f"{moved}{tested}; under the {min_effect:.0%} minimum effect"
    return Judgement(basis, base_median, new_median, change, p_value, verdict, reason)
