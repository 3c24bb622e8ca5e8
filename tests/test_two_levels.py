"""Rounds in two levels (harness/results/compare/two_levels.py and compare's ``two-levels`` rule).

The real pair: the H200 A/A of the main job at 29841c5 (results/main-job-speed/h200-29841c5/),
overlap off run 2 against auto run 2, where GEMM 8192 128x256x64 ``manual`` read SLOWER +7.2 %
with 3 rounds all in its low level against 13 rounds, 8 of them in its high level.  The same
files now compare with exit 0 and that item NOISY, the levels in its reason; a real move of a
kernel with one level, and one of a two-level kernel whose both levels moved, still read SLOWER.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.files.store import load_results
from tlbench.harness.results.compare.two_levels import levels, occupancy

ROOT = Path(__file__).resolve().parents[1]
AA = ROOT / "results" / "main-job-speed" / "h200-29841c5"
MANUAL = "gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-manual"
LOW = [2.025e-3, 2.085e-3, 2.029e-3]
TWO = [x * 1e-3 for x in (2.199, 2.226, 2.021, 2.025, 2.176, 2.026, 2.224, 2.026, 2.266, 2.175, 2.161, 2.197, 2.036)]


def test_two_levels_are_found_and_one_level_is_not():
    split = levels(TWO)
    assert split is not None and len(split.low) == 5 and len(split.high) == 8 and 0.06 < split.gap < 0.065
    assert levels(LOW) is None  # three rounds: too few for two levels of two
    assert levels([1.0, 1.01, 1.02, 1.03, 1.04, 1.05]) is None  # evenly spread: the widest step is not a gap
    assert levels([1.0, 1.001, 1.002, 1.2]) is None  # one round apart is an outlier, not a level


def test_occupancy_explains_only_a_pair_whose_median_lies_between_the_levels():
    assert "fall in two levels" in occupancy(LOW, TWO, 0.05).reason
    assert occupancy(TWO, LOW, 0.05) is not None  # either side may hold the two levels
    moved = [v * 1.10 for v in TWO]  # both levels 10 % slower: the low run's median is below them
    assert occupancy(LOW, moved, 0.05) is None
    assert occupancy(LOW, [v * 1.001 for v in LOW], 0.05) is None  # no move to explain


def test_one_level_kernels_that_moved_are_never_explained():
    rng = random.Random(7)
    for _ in range(2000):
        n_base, n_new = rng.choice([3, 5, 8, 13]), rng.choice([3, 5, 8, 13])
        base = [1e-3 * math.exp(rng.gauss(0, 0.01)) for _ in range(n_base)]
        new = [1.08e-3 * math.exp(rng.gauss(0, 0.01)) for _ in range(n_new)]
        assert occupancy(base, new, 0.05) is None


def test_the_h200_pair_reads_no_regression_and_the_two_level_item_noisy():
    comparison = compare_runs(load_results(AA / "aa-off-2.json.gz"), load_results(AA / "aa-auto-2.json.gz"))
    item = next(i for i in comparison.items if i.key.kind == "device" and i.key.case_id == MANUAL)
    assert item.verdict.value == "NOISY" and item.rule.startswith("rounds in two levels")
    assert "5 rounds at 2.021 ms-2.036 ms and 8 at 2.161 ms-2.266 ms" in item.decided.reason
    assert not [i for i in comparison.items if i.verdict.value in ("SLOWER", "FASTER")]
