"""Step detection over a case's history (pure function on one median per run)."""

import random

import pytest

from tlbench.harness.results.history.steps import detect_steps


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
