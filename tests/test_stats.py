"""Sample summaries and the stopping rule."""

import math

import pytest

from harness.measure.stats import enough, median_ci, relative_ci_halfwidth, summarize


def test_summary_of_known_samples():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.median == 3.0 and s.min == 1.0 and s.max == 100.0 and s.n == 5
    assert s.q1 == 2.0 and s.q3 == 4.0
    assert math.isclose(s.mean, 22.0)


def test_median_ci_brackets_the_median_and_narrows_with_n():
    few = sorted(range(10))
    many = sorted(range(1000))
    lo, hi = median_ci(many)
    assert lo <= 499.5 <= hi
    assert (hi - lo) / 1000 < (median_ci(few)[1] - median_ci(few)[0]) / 10


@pytest.mark.parametrize("bad", [[], [float("nan")], [-1.0]])
def test_bad_samples_are_rejected(bad):
    with pytest.raises(ValueError):
        summarize(bad)


def test_enough_respects_min_max_and_noise():
    steady = [1.0 + 1e-5 * (i % 3) for i in range(30)]
    noisy = [1.0 + (0.5 if i % 2 else 0.0) for i in range(30)]
    assert not enough(steady[:5], min_samples=20, max_samples=100, cv_target=0.005)
    assert enough(steady, min_samples=20, max_samples=100, cv_target=0.005)
    assert not enough(noisy, min_samples=20, max_samples=100, cv_target=0.005)
    assert enough(noisy * 4, min_samples=20, max_samples=100, cv_target=0.005)
    assert relative_ci_halfwidth(steady) < 0.005 < relative_ci_halfwidth(noisy)
