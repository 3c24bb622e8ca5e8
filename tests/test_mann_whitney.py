"""harness/results/compare/mann_whitney.py gives the p-value scipy.stats.mannwhitneyu gives (two-sided,
method auto): exact without ties, the normal approximation with tie and continuity corrections."""

from __future__ import annotations

import random

import pytest
from scipy.stats import mannwhitneyu

from tlbench.harness.results.compare.mann_whitney import mann_whitney_p


@pytest.mark.parametrize("seed", range(4))
def test_equals_scipy_on_random_and_tied_samples(seed):
    rng = random.Random(seed)
    for trial in range(400):
        n1, n2 = rng.randint(2, 12), rng.randint(2, 70)
        if trial % 2:
            n1, n2 = n2, n1
        digits = 1 if trial % 3 == 0 else 9  # every third trial: ties
        a = [round(rng.gauss(0, 1), digits) for _ in range(n1)]
        b = [round(rng.gauss(rng.choice((0, 0.5, 2)), 1), digits) for _ in range(n2)]
        assert mann_whitney_p(a, b) == pytest.approx(float(mannwhitneyu(a, b, alternative="two-sided").pvalue), abs=1e-12)
