"""The run-vs-run rules of harness/results/compare/verdicts.py, and the exit codes of tlbench compare
for an all-failed new run and for malformed failed/skipped records."""

import copy
import json
import math
from pathlib import Path

import pytest

from tlbench.harness.cli import main
from tlbench.harness.results.compare.verdicts import between_rounds, min_of_n, run_shift

FIXTURES = Path(__file__).parent / "fixtures"
H200 = FIXTURES / "h200-stages-smoke.json"


def test_between_rounds_calls_a_change_beyond_its_resolution():
    base = [1.00, 1.01, 0.99, 1.00]
    new = [1.10, 1.11, 1.09, 1.10]
    j = between_rounds(base, new, min_effect=0.05, alpha=0.05)
    assert j.verdict == "SLOWER" and j.change == pytest.approx(0.10, abs=0.002) and j.resolution < 0.05


def test_between_rounds_never_contradicts_its_resolution():
    # rounds spread +-8 %: a 6 % move is inside what the pair resolves -> NOISY, not SLOWER
    base, new = [0.92, 1.0, 1.08], [0.98, 1.06, 1.14]
    j = between_rounds(base, new, min_effect=0.05, alpha=0.05)
    assert j.verdict == "NOISY" and j.resolution > abs(j.change) and "inside the" in j.reason
    # and a tiny move cannot be called SAME when the pair cannot resolve the minimum effect
    j = between_rounds(base, [0.93, 1.01, 1.08], min_effect=0.05, alpha=0.05)
    assert j.verdict == "NOISY" and "cannot say SAME" in j.reason


def test_between_rounds_one_outlier_round_moves_neither_location_nor_resolution():
    base = [4.733, 4.724, 4.853, 4.708, 4.75]
    new = [4.729, 4.726, 5.33, 4.726, 4.758]  # one round in a slow spell (H200, run 4)
    j = between_rounds(base, new, min_effect=0.05, alpha=0.05)
    assert j.verdict == "SAME" and abs(j.change) < 0.002 and j.resolution < 0.02
    # the same outlier on top of a real +6 % move still reads SLOWER
    j = between_rounds(base, [v * 1.06 for v in new], min_effect=0.05, alpha=0.05)
    assert j.verdict == "SLOWER" and j.change == pytest.approx(0.06, abs=0.003)


def test_between_rounds_floor_widens_the_resolution():
    j = between_rounds([1.0, 1.001, 0.999], [1.07, 1.071, 1.069], 0.05, 0.05, floor=0.10, floor_words="drift inside the item")
    assert j.verdict == "NOISY" and "drift inside the item" in j.reason


def test_min_of_n_judges_the_minimum_against_the_factor_and_the_resolution():
    assert min_of_n([1.0, 1.05, 1.02], [1.2, 1.25, 1.22], 0.10).verdict == "SLOWER"
    assert min_of_n([1.0, 1.4, 1.3], [1.2, 1.25, 1.22], 0.10).verdict == "SLOWER"  # slow outliers do not hide it
    assert min_of_n([1.0, 1.05], [0.85, 0.86], 0.10).verdict == "FASTER"
    assert min_of_n([1.0, 1.02], [1.03, 1.04], 0.10).verdict == "SAME"
    unresolved = min_of_n([1.0, 1.02], [1.2, 1.21], 0.10, floor=0.3)
    assert unresolved.verdict == "NOISY" and "cannot resolve" in unresolved.reason


def test_median_of_n_ignores_one_odd_round_either_way():
    """Round-robin builds each over its own probe: the noise is two-sided, so one round that
    met a moment where the probe was fast (or slow) moves neither the median nor the verdict."""
    same = min_of_n([1.0, 1.01, 0.99, 1.0, 1.02], [0.80, 1.0, 1.01, 0.99, 1.25], 0.10, centre="median")
    assert same.verdict == "SAME" and same.change == pytest.approx(0.0) and "median" in same.rule
    assert min_of_n([1.0, 1.01, 0.99, 1.0, 1.02], [0.80, 1.0, 1.01, 0.99, 1.25], 0.10).verdict == "FASTER"  # the minimum would
    slower = min_of_n([1.0, 1.01, 0.99, 1.0, 1.02], [1.2, 0.9, 1.21, 1.19, 1.22], 0.10, centre="median")
    assert slower.verdict == "SLOWER" and slower.change == pytest.approx(0.2)


def test_with_three_builds_a_rank_test_cannot_reach_p_005_but_min_of_n_can():
    assert 2 / math.comb(6, 3) == pytest.approx(0.1)  # the smallest exact two-sided U-test p
    assert min_of_n([1.0, 1.01, 1.02], [1.2, 1.21, 1.22], 0.10).verdict == "SLOWER"


def test_run_shift_attribution():
    slower = [1.2, 1.19, 1.21, 1.2, 1.22]
    shared = run_shift("s", "b", "device", slower, [1.2], 0.05, 0.05)
    assert shared.verdict == "MACHINE" and not shared.gates and "the machine, not the code" in shared.words
    alone = run_shift("s", "b", "device", slower, [1.0], 0.05, 0.05)
    assert alone.verdict == "SHIFT" and alone.gates and "moved only +0.0%: not the machine" in alone.words
    compile_ = run_shift("s", "b", "compile", slower, [], 0.1, 0.05, witness="machine probe")
    assert compile_.gates and "no in-run machine probe for compile items" in compile_.words
    faster = run_shift("s", "b", "compile", [1 / r for r in slower], [], 0.1, 0.05)
    assert faster.verdict == "SHIFT" and not faster.gates
    mixed = run_shift("s", "b", "device", [1.2, 0.8, 1.2, 0.8, 1.0], [], 0.05, 0.05)
    assert mixed.verdict == "NONE"
    assert run_shift("s", "b", "device", [1.2, 1.2], [], 0.05, 0.05) is None  # too few kernels


# -- exit codes ----------------------------------------------------------------------------------


def _all_failed(doc):
    new = copy.deepcopy(doc)
    failed = []
    for bench in new["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        failed.append({"schema_version": rec["schema_version"], "backend": rec["backend"], "kind": rec["kind"],
                       "case_id": rec["case_id"], "kernel": rec.get("kernel"), "config": rec.get("config"),
                       "nodeid": bench["fullname"], "status": "failed", "stage": "run",
                       "error": "RuntimeError: CUDA error: an illegal memory access was encountered"})
    new["benchmarks"] = []
    new["tlbench"]["failed"] = failed
    return new


def test_every_item_of_the_new_run_failed_is_exit_1(tmp_path, capsys):
    doc = json.loads(H200.read_text())
    new = tmp_path / "new.json"
    new.write_text(json.dumps(_all_failed(doc)))
    code = main(["compare", str(H200), str(new)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "FAILED" in out and "illegal memory access" in out


@pytest.mark.parametrize("kind, field", [("failed", "case_id"), ("failed", "backend"), ("skipped", "reason")])
def test_a_malformed_failed_or_skipped_record_is_exit_2_naming_file_and_field(tmp_path, capsys, kind, field):
    doc = json.loads(H200.read_text())
    bad = _all_failed(doc) if kind == "failed" else copy.deepcopy(doc)
    if kind == "skipped":
        bad["tlbench"]["skipped"] = [{"schema_version": 1, "backend": "nvidia", "kind": "device", "case_id": "x", "nodeid": "n"}]
    else:
        del bad["tlbench"]["failed"][0][field]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code = main(["compare", str(H200), str(path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(path) in err and f"tlbench.{kind}[0]" in err and f"has no {field}" in err


def test_one_build_a_side_never_decides_a_compile_verdict():
    """An item the quick scope's CPU-second cap left one round: its move is NOISY (seen on an
    H200 A/A: one 8.5 s build read +18.8 %), with the way to resolve it; two builds decide."""
    for base, new in (([8.5], [10.1]), ([8.5, 8.6], [10.1]), ([10.1], [8.5])):
        for centre in ("min", "median"):
            one = min_of_n(base, new, 0.10, centre=centre)
            assert one.verdict == "NOISY", (base, new, centre, one)
            assert "one build cannot tell" in one.reason and "--tlbench-compile-rounds" in one.reason
    assert min_of_n([8.5, 8.6], [10.1, 10.2], 0.10).verdict == "SLOWER"
    assert min_of_n([8.5], [8.6], 0.10).verdict == "SAME"  # a build that did not move says so
