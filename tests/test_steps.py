"""Step detection over a case's history (pure function on one median per run)."""

import math
import random

import numpy as np
import pytest

from tlbench.harness.results.history.steps import _segments, detect_steps, segment_costs


def _noisy(level: float, n: int, rng: random.Random, sd: float = 0.01) -> list[float]:
    return [level * (1 + rng.gauss(0, sd)) for _ in range(n)]


def test_a_level_change_is_found_at_the_first_run_of_the_new_level():
    rng = random.Random(7)
    values = _noisy(1.0, 30, rng) + _noisy(1.1, 20, rng)
    (step,) = detect_steps(values, min_effect=0.05)
    assert step.index == 30 and step.change == pytest.approx(0.10, abs=0.01)


def test_noise_alone_and_a_single_outlier_make_no_step():
    rng = random.Random(3)
    assert detect_steps(_noisy(1.0, 120, rng), 0.05) == []
    values = _noisy(1.0, 40, rng)
    values[17] = 1.4
    assert detect_steps(values, 0.05) == []


def test_a_change_smaller_than_the_minimum_effect_is_not_a_step():
    values = [1.0] * 10 + [1.03] * 10
    assert detect_steps(values, 0.05) == []
    assert [s.index for s in detect_steps(values, 0.02)] == [10]


def test_two_steps_in_both_directions():
    values = [2.0] * 8 + [2.4] * 8 + [1.9] * 8
    steps = detect_steps(values, 0.05)
    assert [s.index for s in steps] == [8, 16]
    assert steps[0].change > 0 > steps[1].change


def test_too_few_runs_and_bad_values():
    assert detect_steps([1.0, 2.0], 0.05) == []
    with pytest.raises(ValueError, match="positive"):
        detect_steps([1.0, 0.0, 1.0], 0.05)


def _reference_costs(y):
    """Every window's L1 cost straight from its median (the definition)."""
    n = y.size
    costs = np.full((n + 1, n + 1), np.inf)
    for a in range(n):
        for b in range(a + 1, n + 1):
            costs[a, b] = np.abs(y[a:b] - np.median(y[a:b])).sum()
    return costs


def _reference_segments(y, gamma):
    """The optimal partition by the plain dynamic program over every (start, end)."""
    costs, n = _reference_costs(y), y.size
    best, prev = [0.0] + [math.inf] * n, [0] * (n + 1)
    for end in range(1, n + 1):
        for start in range(end):
            if best[start] + costs[start, end] + gamma < best[end]:
                best[end], prev[end] = best[start] + costs[start, end] + gamma, start
    bounds, end = [], n
    while end > 0:
        bounds.append((prev[end], end))
        end = prev[end]
    return bounds[::-1]


def test_every_window_cost_is_its_l1_distance_to_its_median():
    rng = np.random.default_rng(5)
    for trial in range(60):
        n = int(rng.integers(1, 30))
        y = rng.normal(size=n) if trial % 3 else rng.integers(0, 3, size=n).astype(float)  # ties too
        assert np.allclose(segment_costs(y), _reference_costs(y), rtol=0, atol=1e-9, equal_nan=False)


def test_the_partition_is_the_plain_dynamic_programs():
    rng = np.random.default_rng(11)
    for trial in range(40):
        n = int(rng.integers(3, 60))
        levels = np.repeat(rng.choice([0.0, 0.05, 0.12], size=4), -(-n // 4))[:n]
        y = levels + rng.normal(scale=0.01, size=n)
        if trial % 4 == 0:
            y = np.round(y, 2)  # ties
        gamma = float(rng.uniform(0.005, 0.2))
        assert _segments(y, gamma) == _reference_segments(y, gamma), trial
