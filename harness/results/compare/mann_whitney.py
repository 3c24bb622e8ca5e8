"""The two-sided Mann-Whitney U test as scipy.stats.mannwhitneyu computes it, without its call cost.

Contract: ``mann_whitney_p(base, new)`` returns scipy's two-sided p-value (method ``auto``):
the exact distribution of U for small untied samples (counted here up to ``COUNTED_MAX``, else
asked of scipy), else the normal approximation with tie and continuity corrections.  scipy's
argument handling costs ~1 ms a call; tests/test_mann_whitney.py pins this against scipy.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

EXACT_MAX = 8  # scipy's "auto": exact when one side has at most this many values and nothing ties
COUNTED_MAX = 50  # the exact distribution is counted here up to this many values on the other side; beyond, scipy


def _ranks(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """Average ranks (1-based) of ``values`` and the sizes of the tied groups."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    ties: list[int] = []
    start = 0
    for end in range(1, len(order) + 1):
        if end < len(order) and values[order[end]] == values[order[start]]:
            continue
        rank = (start + end - 1) / 2 + 1
        for k in order[start:end]:
            ranks[k] = rank
        ties.append(end - start)
        start = end
    return ranks, ties


@lru_cache(maxsize=None)
def _u_counts(n1: int, n2: int) -> tuple[int, ...]:
    """Number of arrangements giving each U = 0 .. n1*n2 (the exact null distribution)."""
    # f(i, j, u): arrangements of i + j values with statistic u; f(i, j) = f(i-1, j) shifted by j + f(i, j-1)
    table = {(0, j): (1,) for j in range(n2 + 1)}
    for i in range(1, n1 + 1):
        table[(i, 0)] = (1,)
        for j in range(1, n2 + 1):
            a, b = table[(i - 1, j)], table[(i, j - 1)]
            size = i * j + 1
            out = [0] * size
            for u, c in enumerate(a):
                out[u + j] += c
            for u, c in enumerate(b):
                out[u] += c
            table[(i, j)] = tuple(out)
    return table[(n1, n2)]


def mann_whitney_p(base: Sequence[float], new: Sequence[float]) -> float:
    n1, n2 = len(base), len(new)
    values = [float(v) for v in base] + [float(v) for v in new]
    ranks, ties = _ranks(values)
    u1 = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    if min(n1, n2) <= EXACT_MAX and all(t == 1 for t in ties):
        if max(n1, n2) > COUNTED_MAX:
            from scipy.stats import mannwhitneyu

            return float(mannwhitneyu(base, new, alternative="two-sided").pvalue)
        counts = _u_counts(n1, n2)
        total = math.comb(n1 + n2, n1)
        u = int(round(max(u1, u2)))
        tail = sum(counts[u:]) / total  # P(U >= u), the larger statistic: the smaller tail
        return min(1.0, 2 * tail)
    n = n1 + n2
    tie_term = sum(t ** 3 - t for t in ties)
    variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance <= 0:
        return 1.0
    z = (max(u1, u2) - n1 * n2 / 2 - 0.5) / math.sqrt(variance)
    return min(1.0, max(0.0, math.erfc(z / math.sqrt(2))))  # 2 * normal survival of z
