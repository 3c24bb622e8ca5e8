"""Rounds that fall in two levels: a kernel whose time has two modes, told from a kernel that moved.

Contract (pure): ``levels(values)`` splits per-round medians at the widest log gap into two
levels of ``MIN_PER_LEVEL`` rounds, or None; ``occupancy(base, new, min_effect)``: an
``Occupancy`` where the medians differ by ``min_effect``, one side has two levels and the
other's median lies between them (an H200 GEMM A/A pair read SLOWER +7.2 % so).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

MIN_PER_LEVEL = 2


@dataclass(frozen=True)
class Levels:
    low: tuple[float, ...]  # seconds, ascending
    high: tuple[float, ...]
    gap: float  # relative step from the low level's top to the high level's bottom

    def words(self) -> str:
        return (f"{len(self.low)} rounds at {_ms(self.low[0])}-{_ms(self.low[-1])} and {len(self.high)} at "
                f"{_ms(self.high[0])}-{_ms(self.high[-1])}, {self.gap:.1%} apart")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds < 1 else f"{seconds:.3f} s"


def levels(values: Sequence[float]) -> Levels | None:
    xs = sorted(v for v in values if v > 0)
    if len(xs) < 2 * MIN_PER_LEVEL:
        return None
    logs = [math.log(v) for v in xs]
    gap, cut = max((logs[i + 1] - logs[i], i + 1) for i in range(len(logs) - 1))
    low, high = logs[:cut], logs[cut:]
    if len(low) < MIN_PER_LEVEL or len(high) < MIN_PER_LEVEL:
        return None
    if gap <= max(low[-1] - low[0], high[-1] - high[0]):
        return None
    return Levels(tuple(xs[:cut]), tuple(xs[cut:]), math.expm1(gap))


@dataclass(frozen=True)
class Occupancy:
    base_median: float
    new_median: float
    reason: str

    @property
    def change(self) -> float:
        return self.new_median / self.base_median - 1


def occupancy(base: Sequence[float], new: Sequence[float], min_effect: float) -> Occupancy | None:
    if not base or not new:
        return None
    base_median, new_median = statistics.median(base), statistics.median(new)
    if abs(new_median / base_median - 1) < min_effect:
        return None
    for side, values, other, other_median in (("new", new, "base", base_median), ("base", base, "new", new_median)):
        split = levels(values)
        if split is not None and split.low[0] <= other_median <= split.high[-1]:
            return Occupancy(base_median, new_median,
                             f"median of rounds {new_median / base_median - 1:+.1%}, but the {side} run's rounds fall in two levels "
                             f"({split.words()}) and the {other} run's median {_ms(other_median)} lies between their ends: "
                             f"the pair differs by which level more rounds landed on, not by a move of the kernel "
                             f"(a kernel that newly has a second level is a move this pair cannot tell: compare more runs)")
    return None
