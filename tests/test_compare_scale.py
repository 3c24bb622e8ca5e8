"""compare's work grows linearly with the items (no per-item pass over a whole group): counted
in Python function calls (sys.setprofile) over synthetic runs of two sizes
(tests/synthetic_runs.py), never in seconds."""

from __future__ import annotations

import sys

import pytest

from synthetic_runs import synthetic_run
from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.files.store import parse_results


def _calls(kind: str, items: int) -> int:
    base = parse_results(synthetic_run(kind, items, seed=1), "base.json")
    new = parse_results(synthetic_run(kind, items, seed=2), "new.json")
    compare_runs(base, new)  # warm: imports and caches of the first call are not the items' work
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        cmp = compare_runs(base, new)
    finally:
        sys.setprofile(None)
    assert cmp.compared == items and not cmp.has_regression
    return count


@pytest.mark.parametrize("kind", ["compile", "device"])
def test_compare_work_is_linear_in_the_items(kind):
    small, large = _calls(kind, 100), _calls(kind, 400)
    assert large < 5 * small, (small, large)  # quadratic work would be ~16x


def test_a_slowed_item_of_a_large_synthetic_run_is_found():
    base = parse_results(synthetic_run("compile", 300, seed=1), "base.json")
    target = base.records[17]["case_id"]
    new = parse_results(synthetic_run("compile", 300, seed=2, slow=[target]), "new.json")
    cmp = compare_runs(base, new)
    assert [i.key.case_id for i in cmp.regressions] == [target]
