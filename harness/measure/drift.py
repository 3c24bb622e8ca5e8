"""Drift across batches: a level shift or a trend in the batch medians of one item.

Contract: ``detect_drift(batch_medians, threshold)`` returns a ``DriftFinding`` or None.  Trend: 5+
batches, |Kendall tau| >= 0.7 and a Theil-Sen change >= ``threshold``.  Shift: a split into two
non-overlapping segments whose medians differ by >= ``threshold`` (from ``SHIFT_MIN_BATCHES`` on,
two batches a side).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Sequence

from ..core.stats import median

DEFAULT_THRESHOLD = 0.02
TREND_MIN_BATCHES = 5
TREND_MIN_TAU = 0.7
SHIFT_MIN_BATCHES = 4  # from this many batches on, a level needs two batches on each side


@dataclass(frozen=True)
class DriftFinding:
    kind: str  # "shift" | "trend"
    relative: float  # signed size of the move (trend: over the overall median; shift: over the earlier level)
    at_batch: int | None  # shift: first batch of the later segment (0-based)
    batches: int
    words: str

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def kendall_tau(values: Sequence[float]) -> float:
    """Kendall's tau-a of the values against their order (scipy's tau-b, ties corrected)."""
    n = len(values)
    if n < 2:
        return 0.0
    from scipy.stats import kendalltau  # imported here: the measuring process pays for it only when it asks

    tau_b = float(kendalltau(range(n), values).statistic)
    if math.isnan(tau_b):
        return 0.0
    pairs = n * (n - 1) / 2
    tied = sum(t * (t - 1) / 2 for t in Counter(values).values())
    return tau_b * math.sqrt(1 - tied / pairs)


def theil_sen_slope(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    from scipy.stats import theilslopes

    return float(theilslopes(values, range(len(values))).slope)


def _trend(values: Sequence[float], threshold: float) -> DriftFinding | None:
    n = len(values)
    if n < TREND_MIN_BATCHES:
        return None
    tau = kendall_tau(values)
    mid = median(values)
    change = theil_sen_slope(values) * (n - 1) / mid if mid > 0 else 0.0
    if abs(tau) < TREND_MIN_TAU or abs(change) < threshold:
        return None
    words = f"trend: batch medians {'climb' if change > 0 else 'fall'} {change:+.1%} over {n} batches (Kendall tau {tau:+.2f})"
    return DriftFinding("trend", change, None, n, words)


def _shift(values: Sequence[float], threshold: float) -> DriftFinding | None:
    n = len(values)
    mid = median(values)
    if n < 2 or mid <= 0:
        return None
    best: DriftFinding | None = None
    edge = 2 if n >= SHIFT_MIN_BATCHES else 1
    for j in range(edge, n - edge + 1):
        left, right = values[:j], values[j:]
        separated = max(left) < min(right) or min(left) > max(right)
        if not separated:
            continue
        base = median(left)
        step = (median(right) - base) / base if base > 0 else 0.0
        if abs(step) >= threshold and (best is None or abs(step) > abs(best.relative)):
            words = (
                f"level shift {step:+.1%} at batch {j + 1} of {n} "
                f"(batch medians before {median(left):.4g}, after {median(right):.4g})")
            best = DriftFinding("shift", step, j, n, words)
    return best


def detect_drift(batch_medians: Sequence[float], threshold: float = DEFAULT_THRESHOLD) -> DriftFinding | None:
    values = [float(v) for v in batch_medians]
    return _trend(values, threshold) or _shift(values, threshold)
