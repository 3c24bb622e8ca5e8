"""The drift detector on synthetic batch medians: level shifts, trends, and plain noise."""

import random

import pytest

from tlbench.harness.measure.drift import detect_drift, kendall_tau, theil_sen_slope


def test_the_h200_step_inside_one_item_is_a_level_shift():
    found = detect_drift([2.126, 2.131, 2.265, 2.257, 2.256])
    assert found is not None and found.kind == "shift" and found.at_batch == 2
    assert found.relative == pytest.approx(0.0616, abs=0.002)
    assert found.words.startswith("level shift +6.") and "at batch 3 of 5" in found.words


def test_one_batch_apart_at_an_end_is_an_outlier_round_not_a_level():
    # the H200, six rounds of GEMM 8192 `manual`: one slow first round, one slow last round
    assert detect_drift([2.376, 2.041, 2.038, 2.045, 2.043, 2.034]) is None
    assert detect_drift([2.032, 2.038, 2.039, 2.035, 2.037, 2.148]) is None
    assert detect_drift([2.126, 2.265, 2.257, 2.256]) is None  # four batches: a level needs two
    found = detect_drift([2.126, 2.265, 2.257])  # under four batches one batch still makes a level
    assert found is not None and found.kind == "shift" and found.at_batch == 1


def test_the_committed_climb_is_a_trend():
    climb = [2.39, 2.45, 2.52, 2.60, 2.71, 2.80, 2.86, 2.95, 3.02, 3.10]
    found = detect_drift(climb)
    assert found is not None and found.kind == "trend" and found.relative > 0.25
    assert found.words.startswith("trend: batch medians climb")


def test_a_downward_shift_late_in_the_item():
    found = detect_drift([1.0, 1.001, 0.999, 1.0, 0.95, 0.951])
    assert found is not None and found.kind == "shift" and found.relative < 0 and found.at_batch == 4


@pytest.mark.parametrize("seed", range(20))
def test_sub_threshold_noise_is_not_drift(seed):
    rng = random.Random(seed)
    assert detect_drift([1.0 + rng.gauss(0, 0.003) for _ in range(12)]) is None


def test_a_small_step_below_the_threshold_is_not_drift_but_a_lower_threshold_finds_it():
    values = [1.0, 1.0, 1.0, 1.01, 1.01, 1.01]
    assert detect_drift(values) is None
    assert detect_drift(values, threshold=0.005).kind == "shift"


def test_one_outlier_batch_in_the_middle_is_not_a_shift():
    assert detect_drift([1.0, 1.0, 1.08, 1.0, 1.0]) is None


def test_trend_helpers():
    assert kendall_tau([1, 2, 3, 4]) == 1.0 and kendall_tau([4, 3, 2, 1]) == -1.0
    assert theil_sen_slope([1.0, 2.0, 3.0, 4.0, 5.0, 100.0]) == 1.0  # one wild point does not move it


def test_the_scipy_statistics_equal_their_definitions_ties_included():
    """kendall_tau is tau-a and theil_sen_slope the median pairwise slope, as defined (pairs counted here)."""
    import random
    import statistics

    def tau_a(v):
        n = len(v)
        return sum((v[j] > v[i]) - (v[j] < v[i]) for i in range(n) for j in range(i + 1, n)) / (n * (n - 1) / 2)

    def slope(v):
        return statistics.median((v[j] - v[i]) / (j - i) for i in range(len(v)) for j in range(i + 1, len(v)))

    rng = random.Random(7)
    for _ in range(200):
        v = [rng.choice([1.0, 1.01, 1.5]) if rng.random() < 0.5 else rng.random() for _ in range(rng.randint(2, 25))]
        assert abs(kendall_tau(v) - tau_a(v)) < 1e-12 and abs(theil_sen_slope(v) - slope(v)) < 1e-12
