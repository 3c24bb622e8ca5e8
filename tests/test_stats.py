"""Sample summaries, the exact median CI (coverage by simulation) and the stopping criteria."""

import math
import random

import pytest

from tlbench.harness.measure.criteria import CriterionError, FixedCount, MedianCI, StdRel, make_criterion
from tlbench.harness.core.stats import median_ci, median_ci_ranks, summarize


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


@pytest.mark.parametrize("n", [6, 7, 10, 20, 21, 33, 60, 80, 100, 300])
def test_median_ci_exact_coverage_is_at_least_95_percent_and_tightest(n):
    lo, hi, coverage = median_ci_ranks(n)
    exact = sum(math.comb(n, i) for i in range(lo + 1, hi + 1)) / 2**n  # P(lo < #below median <= hi)
    assert math.isclose(coverage, exact) and coverage >= 0.95
    tighter = sum(math.comb(n, i) for i in range(lo + 2, hi)) / 2**n  # one order statistic in, each side
    assert tighter < 0.95


def test_median_ci_below_six_samples_is_min_max_with_its_true_coverage():
    lo, hi, coverage = median_ci_ranks(5)
    assert (lo, hi) == (0, 4) and math.isclose(coverage, 1 - 2 / 32)


@pytest.mark.parametrize("n", [21, 60, 100])
def test_median_ci_coverage_by_simulation(n):
    """Skewed (exponential) samples with a known median ln 2: the CI holds it >= ~95 % of the time."""
    rng = random.Random(n)
    trials, hits = 4000, 0
    for _ in range(trials):
        values = sorted(rng.expovariate(1.0) for _ in range(n))
        lo, hi = median_ci(values)
        hits += lo <= math.log(2) <= hi
    expected = median_ci_ranks(n)[2]
    # binomial standard error of a 4000-trial proportion near 0.96 is ~0.003: allow 4 of them
    assert hits / trials >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / trials)
    assert abs(hits / trials - expected) < 4 * math.sqrt(expected * (1 - expected) / trials)


@pytest.mark.parametrize("bad", [[], [float("nan")], [-1.0]])
def test_bad_samples_are_rejected(bad):
    with pytest.raises(ValueError):
        summarize(bad)


STEADY = [1.0 + 1e-5 * (i % 3) for i in range(30)]
NOISY = [1.0 + (0.5 if i % 2 else 0.0) for i in range(30)]
OUTLIERS = [1.0 + 1e-5 * (i % 3) for i in range(57)] + [3.0, 3.0, 3.0]


def test_median_ci_criterion_needs_min_samples_and_a_narrow_interval():
    c = MedianCI(rel=0.005, min_samples=20)
    assert not c.is_finished(STEADY[:5])
    assert c.is_finished(STEADY)
    assert not c.is_finished(NOISY)
    assert c.progress(STEADY) < 0.005 < c.progress(NOISY)  # the median CI's half-width over the median
    assert c.is_finished(OUTLIERS)  # a few slow outliers do not move the median's interval


def test_stdrel_criterion_is_strict_about_outliers():
    c = StdRel(max_noise=0.005, min_samples=20)
    assert c.is_finished(STEADY) and not c.is_finished(STEADY[:10])
    assert not c.is_finished(OUTLIERS) and not c.is_finished(NOISY)
    assert math.isclose(c.progress([1.0, 3.0]), math.sqrt(2) / 2)


def test_fixed_count_criterion():
    c = FixedCount(samples=7)
    assert not c.is_finished([1.0] * 6) and c.is_finished([1.0] * 7)


def test_criterion_specs_parse_and_describe_themselves():
    c = make_criterion("stdrel:max_noise=0.01,min_samples=40")
    assert c.describe() == {"name": "stdrel", "params": {"max_noise": 0.01, "min_samples": 40}}
    assert make_criterion("median-ci").describe()["params"]["rel"] == 0.005


@pytest.mark.parametrize(
    "spec, words",
    [("cv", "unknown stopping criterion 'cv'"), ("stdrel:rel=0.1", "takes max_noise=NUMBER"), ("median-ci:rel=x", "must be a number"), ("fixed:samples=0", "must be > 0")],
)
def test_bad_criterion_specs_say_what_to_do(spec, words):
    with pytest.raises(CriterionError, match=words):
        make_criterion(spec)


def test_median_of_checked_samples_is_the_summary_median_with_the_same_checks():
    from tlbench.harness.core.stats import median, sorted_samples, summarize
    from tlbench.harness.results.compare.judgement import median_of

    for samples in ([3.0], [2.0, 1.0], [5.0, 1.0, 3.0, 2.0], [0.1 * i for i in range(37, 0, -1)]):
        assert median(sorted_samples(samples)) == summarize(samples).median == median_of(samples)
    for bad in ([], [float("nan")], [-1.0]):
        with pytest.raises(ValueError):
            median_of(bad)
