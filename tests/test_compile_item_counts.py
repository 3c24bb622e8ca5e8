"""The compile gate cannot cry wolf on real runs of unchanged code with other item counts, or
beside busy loops, and still calls a real 1.2x slower compile (tests/fixtures/compare/item-counts,
README there).  Each pair is compared as a narrower run is (``accept_missing``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compare.judgement import Verdict
from tlbench.harness.results.files.store import load_results

RUNS = Path(__file__).resolve().parent / "fixtures" / "compare" / "item-counts"
SLOWED = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"
UNCHANGED = [("full1", "two1"), ("full2", "two2"), ("full3", "two3"), ("full1", "two4"), ("full2", "two5"),
             ("full1", "fourteen1"), ("full2", "fourteen2"), ("full3", "fourteen3"), ("full1", "fourteen4"),
             ("full2", "fourteen5"), ("full1", "pair1"), ("full2", "pair2"), ("full3", "pair3"),
             ("full1", "busy1"), ("full2", "busy2"), ("full3", "busy3"), ("full1", "full2"), ("full2", "full3")]


def _compare(base: str, new: str):
    return compare_runs(load_results(RUNS / f"{base}.json.gz"), load_results(RUNS / f"{new}.json.gz"), accept_missing=True)


@pytest.mark.parametrize("base, new", UNCHANGED)
def test_unchanged_code_of_another_item_count_or_beside_busy_loops_is_never_called(base, new):
    cmp = _compare(base, new)
    called = [(i.key.backend, i.key.case_id, i.decisive.reason) for i in cmp.items if i.verdict in (Verdict.SLOWER, Verdict.FASTER)]
    assert called == [] and not [s for s in cmp.shifts if s.verdict == "SHIFT"] and not cmp.has_regression
    for item in cmp.items:  # the verdict and its why are one judgement
        assert item.decisive is None or item.decisive.verdict is item.verdict


def test_a_selection_measured_otherwise_is_labelled_with_how():
    cmp = _compare("full1", "two1")
    assert {i.verdict for i in cmp.items if i.time is not None} == {Verdict.NOISY}
    assert all("back to back in new" in i.decisive.reason for i in cmp.items if i.time is not None)
    shifts = [s for s in _compare("full2", "fourteen5").shifts if s.verdict != "NONE"]
    assert shifts and all(s.verdict == "NOISY" and not s.gates for s in shifts)


@pytest.mark.parametrize("base", ["full1", "full2", "full3"])
def test_one_item_compiled_1_2x_slower_is_still_slower(base):
    cmp = _compare(base, "slow1")
    slower = [i for i in cmp.items if i.verdict is Verdict.SLOWER]
    assert slower and all(i.key.case_id == SLOWED for i in slower), [(i.key.case_id, i.decisive.reason) for i in slower]
    assert cmp.has_regression and not [i for i in cmp.items if i.verdict is Verdict.FASTER]
