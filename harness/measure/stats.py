"""Summaries of timing samples.  Pure functions on floats: no pytest, no devices.

Contract: ``summarize(samples)`` returns a ``Summary`` whose ``median`` is the headline
number; ``cv`` is the robust relative spread (stdev / mean); ``median_ci`` is a
distribution-free ~95 % confidence interval of the median from order statistics;
``enough(samples, policy)`` says whether sampling may stop.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from typing import Any, Sequence


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("no samples")
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = math.ceil(pos)
    frac = pos - lo
    return sorted_values[lo] * (1 - frac) + sorted_values[hi] * frac


def median_ci(sorted_values: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """Order-statistic confidence interval of the median (binomial normal approximation)."""
    n = len(sorted_values)
    if n < 6:
        return sorted_values[0], sorted_values[-1]
    half = z * math.sqrt(n) / 2
    lo = max(0, int(math.floor(n / 2 - half)))
    hi = min(n - 1, int(math.ceil(n / 2 + half)) - 1)
    return sorted_values[lo], sorted_values[hi]


def summarize(samples: Sequence[float]) -> Summary:
    values = sorted(float(s) for s in samples)
    if not values:
        raise ValueError("summarize() needs at least one sample")
    if any(math.isnan(v) or v < 0 for v in values):
        raise ValueError("samples must be non-negative numbers")
    mean = statistics.fmean(values)
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    low, high = median_ci(values)
    return Summary(
        n=len(values),
        median=_quantile(values, 0.5),
        mean=mean,
        stdev=stdev,
        cv=stdev / mean if mean > 0 else 0.0,
        min=values[0],
        max=values[-1],
        q1=_quantile(values, 0.25),
        q3=_quantile(values, 0.75),
        median_ci_low=low,
        median_ci_high=high,
    )


def relative_ci_halfwidth(samples: Sequence[float]) -> float:
    """Half-width of the median's confidence interval relative to the median."""
    s = summarize(samples)
    if s.median <= 0:
        return math.inf
    return (s.median_ci_high - s.median_ci_low) / 2 / s.median


def enough(samples: Sequence[float], min_samples: int, max_samples: int, cv_target: float) -> bool:
    """Stop when the median is pinned to ``cv_target`` (relative CI half-width) or at the cap.

    The median's CI is used rather than the raw CV: a kernel with a few slow outliers has a
    large CV forever, yet its median is known to 0.1 % after a hundred samples.
    """
    n = len(samples)
    if n >= max_samples:
        return True
    if n < min_samples:
        return False
    return relative_ci_halfwidth(samples) <= cv_target
