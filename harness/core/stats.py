"""Summaries of timing samples.  Pure functions on floats: no pytest, no devices.

Contract: ``summarize(samples)`` returns a ``Summary`` (``median`` the headline, ``cv`` stdev / mean,
``median_ci_low/high`` the exact order-statistic interval of the median at its true ``median_ci_coverage``: >= 95 %
from n >= 6, else [min, max]); no samples, NaN or negatives raise ``ValueError``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Sequence

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    stdev: float
    cv: float
    min: float
    max: float
    q1: float
    q3: float
    median_ci_low: float
    median_ci_high: float
    median_ci_coverage: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("no samples")
    pos = (len(sorted_values) - 1) * q
    lo, frac = math.floor(pos), pos - math.floor(pos)
    return sorted_values[lo] * (1 - frac) + sorted_values[math.ceil(pos)] * frac


def median(values: Sequence[float]) -> float:
    return _quantile(sorted(values), 0.5)


@lru_cache(maxsize=4096)
def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """0-based ranks (lo, hi) of the order statistics bounding the median, and their coverage: the largest k whose
    coverage 1 - 2 P(Bin(n, 1/2) <= k - 1) is still >= ``confidence``, computed exactly."""
    if n < 1:
        raise ValueError("median_ci_ranks needs n >= 1")
    total = 2**n
    tail = 0  # sum_{i < k} C(n, i), for the current k
    best_k, best_cov = 1, 1.0 - 2.0 / total if n > 1 else 0.0
    for k in range(1, n // 2 + 1):
        tail += math.comb(n, k - 1)
        coverage = 1.0 - 2.0 * tail / total
        if coverage < confidence:
            break
        best_k, best_cov = k, coverage
    return best_k - 1, n - best_k, best_cov


def median_ci(sorted_values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Exact order-statistic confidence interval of the median of already sorted values."""
    lo, hi, _ = median_ci_ranks(len(sorted_values), confidence)
    return sorted_values[lo], sorted_values[hi]


def sorted_samples(samples: Sequence[float], caller: str = "summarize") -> list[float]:
    """Timing samples sorted, after ``summarize``'s checks."""
    values = sorted(float(s) for s in samples)
    if not values:
        raise ValueError(f"{caller}() needs at least one sample")
    if any(math.isnan(v) or v < 0 for v in values):
        raise ValueError("samples must be non-negative numbers")
    return values


def summarize(samples: Sequence[float]) -> Summary:
    values = sorted_samples(samples)
    mean = statistics.fmean(values)
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    lo, hi, coverage = median_ci_ranks(len(values))
    return Summary(
        n=len(values), median=_quantile(values, 0.5), mean=mean, stdev=stdev, cv=stdev / mean if mean > 0 else 0.0,
        min=values[0], max=values[-1], q1=_quantile(values, 0.25), q3=_quantile(values, 0.75), median_ci_low=values[lo],
        median_ci_high=values[hi], median_ci_coverage=coverage)
