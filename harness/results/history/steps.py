"""Step detection over one case's history: where did its level change?  Pure.

Contract: ``detect_steps(values, min_effect)`` (one positive number per run, oldest first)
returns the ``Step``s of the best piecewise-constant fit (asv's ``step_detect``: L1 cost on log
values plus ``PENALTY_SIGMAS`` x sigma x log(n) per segment, by dynamic programming); a lone run
between segments is an outlier (but the newest); neighbours closer than ``min_effect`` merge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

PENALTY_SIGMAS = 4.0
MIN_POINTS = 3  # fewer runs than this: no step can be told apart from noise


@dataclass(frozen=True)
class Step:
    index: int  # first run (0-based, oldest first) at the new level
    before: float  # level (median) of the segment before, in the input's unit
    after: float
    change: float  # after / before - 1: +0.08 = 8 % higher (slower, for a time)


def _noise(y: np.ndarray, floor: float) -> float:
    diffs = np.diff(y)
    if diffs.size == 0:
        return floor
    mad = float(np.median(np.abs(diffs - np.median(diffs))))
    return max(1.4826 * mad / math.sqrt(2.0), floor)


def segment_costs(y: np.ndarray) -> np.ndarray:
    """``C[a, b]`` = sum |y[a:b] - median(y[a:b])| for every 0 <= a < b <= n (inf elsewhere).

    With ``below[i, j]`` = how many of y[:i] rank below j and ``mass[i, j]`` their sum, the
    window y[a:b] has ``below[b, j] - below[a, j]`` values ranked below j.  Its median (the
    ceil(m/2)-th smallest, m = b - a) is the smallest rank j holding that many at or below
    it, found for all windows together by a binary search over ranks; the cost is the
    window's sum minus twice the sum at or below the median, plus the median itself when m
    is odd (the L1 distance to any point between the two middle values)."""
    n = y.size
    width = n + 1
    y = y - float(np.median(y))  # small magnitudes: the prefix sums lose less
    order = np.argsort(y, kind="stable")
    onehot = np.zeros((width, width), dtype=np.int32)
    onehot[np.arange(1, width), np.argsort(order, kind="stable") + 1] = 1
    below = onehot.cumsum(0).cumsum(1).ravel()  # below[i, j]: of y[:i], how many have rank < j
    mass = (onehot * np.append(0.0, y)[:, None]).cumsum(0).cumsum(1).ravel()  # ... and their sum
    a, b = np.nonzero(np.triu(np.ones((width, width), dtype=bool), 1))  # every window y[a:b]
    row_a, row_b = a * width + 1, b * width + 1  # flat offsets (+1: "rank <= j" is "rank < j + 1")
    half = ((b - a + 1) // 2).astype(np.int32)
    lo, hi = np.zeros(a.size, dtype=np.intp), np.full(a.size, n - 1, dtype=np.intp)
    for _ in range(max(n - 1, 1).bit_length()):  # smallest rank j with at least `half` values ranked <= j
        mid = (lo + hi) >> 1  # (once lo == hi, mid is the answer and nothing moves)
        enough = below[row_b + mid] - below[row_a + mid] >= half
        np.copyto(hi, mid, where=enough)
        np.copyto(lo, mid + 1, where=~enough)
    low_sum = mass[row_b + lo] - mass[row_a + lo]
    window_sum = mass[row_b + n - 1] - mass[row_a + n - 1]
    odd = ((b - a) & 1).astype(bool)
    costs = np.full((width, width), np.inf)
    costs[a, b] = np.maximum(window_sum - 2.0 * low_sum + np.where(odd, y[order][lo], 0.0), 0.0)
    return costs


def _segments(y: np.ndarray, gamma: float) -> list[tuple[int, int]]:
    """Optimal partition [(start, end), ...] minimising L1 cost + gamma per segment (ties:
    the earliest start)."""
    n = y.size
    costs = segment_costs(y)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    prev = np.zeros(n + 1, dtype=int)
    for end in range(1, n + 1):
        total = best[:end] + costs[:end, end]
        start = int(np.argmin(total))
        best[end], prev[end] = total[start] + gamma, start
    bounds = []
    end = n
    while end > 0:
        bounds.append((int(prev[end]), end))
        end = int(prev[end])
    return bounds[::-1]


def _absorb_outliers(y: np.ndarray, bounds: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A single run between two segments is an outlier, not a level: join it to the
    neighbour closer in level.  (A single newest run stays: it may start a new level.)"""
    i = 1
    while i < len(bounds) - 1:
        a, b = bounds[i]
        if b - a > 1:
            i += 1
            continue
        left, right = float(np.median(y[slice(*bounds[i - 1])])), float(np.median(y[slice(*bounds[i + 1])]))
        if abs(y[a] - left) <= abs(y[a] - right):
            bounds = bounds[: i - 1] + [(bounds[i - 1][0], b)] + bounds[i + 1:]
        else:
            bounds = bounds[:i] + [(a, bounds[i + 1][1])] + bounds[i + 2:]
    return bounds


def _merge_small(y: np.ndarray, bounds: list[tuple[int, int]], min_log: float) -> list[tuple[int, int]]:
    bounds = _absorb_outliers(y, bounds)
    while len(bounds) > 1:
        levels = [float(np.median(y[a:b])) for a, b in bounds]
        gaps = [abs(levels[i + 1] - levels[i]) for i in range(len(levels) - 1)]
        smallest = min(range(len(gaps)), key=gaps.__getitem__)
        if gaps[smallest] >= min_log:
            break
        (a, _), (_, b) = bounds[smallest], bounds[smallest + 1]
        bounds = bounds[:smallest] + [(a, b)] + bounds[smallest + 2:]
    return bounds


def detect_steps(values: Sequence[float], min_effect: float = 0.05) -> list[Step]:
    if min_effect <= 0:
        raise ValueError(f"min_effect must be > 0 (a fraction like 0.05), got {min_effect}")
    if any(not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0) for v in values):
        raise ValueError("step detection needs positive finite values (one median per run)")
    if len(values) < MIN_POINTS:
        return []
    y = np.log(np.asarray(values, dtype=float))
    min_log = math.log1p(min_effect)
    sigma = _noise(y, floor=min_log / 8)
    gamma = PENALTY_SIGMAS * sigma * math.log(len(y))
    bounds = _merge_small(y, _segments(y, gamma), min_log)
    steps = []
    for (a, b), (c, d) in zip(bounds, bounds[1:]):
        before, after = math.exp(float(np.median(y[a:b]))), math.exp(float(np.median(y[c:d])))
        steps.append(Step(index=c, before=before, after=after, change=after / before - 1))
    return steps
