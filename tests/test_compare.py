"""tlbench.harness.results.compare.compare on checked-in JSON of real runs (tests/fixtures/compare/README.md).

What is pinned: the verdict rule (rank test AND minimum effect AND noise floor), A/A of real
runs gives no SLOWER, an injected 10 % slowdown is SLOWER, the in-run vendor ratio cancels
clock drift and says it decided, failed / missing / new items, testbed and backend
mismatches, per-suite minimum effect, and the cross-backend stage join.
"""

import copy
import json
import math
from pathlib import Path

import pytest

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compare.compare_backends import COMPILE_TIME, DEVICE_TIME, MODELED_CYCLES, compare_backends
from tlbench.harness.results.compare.comparison import CompareError
from tlbench.harness.results.compare.judgement import RUN_RATIO, TIME, VENDOR_RATIO, Thresholds, Verdict, judge
from tlbench.harness.results.files.store import load_results, parse_results

FIXTURES = Path(__file__).parent / "fixtures"
COMPARE = FIXTURES / "compare"
H200 = FIXTURES / "h200-stages-smoke.json"


def _load(name):
    return load_results(COMPARE / name)


def _modified(results, edit, name="new.json"):
    """A copy of a real run with ``edit(record)`` applied to each timed record."""
    doc = copy.deepcopy(results.document)
    for bench in doc["benchmarks"]:
        edit(bench["extra_info"]["tlbench"])
    return parse_results(doc, name)


def _scale(factor, when=lambda rec: True):
    def edit(rec):
        if when(rec):
            rec["samples_s"] = [s * factor for s in rec["samples_s"]]

    return edit


# -- the rule ---------------------------------------------------------------------------------

BASE = [1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.00]


def test_judge_slower_needs_rank_test_and_minimum_effect():
    slower = judge(BASE, [x * 1.10 for x in BASE], min_effect=0.05, alpha=0.05)
    assert slower.verdict is Verdict.SLOWER and slower.p_value < 0.05
    assert slower.change == pytest.approx(0.10)
    faster = judge(BASE, [x * 0.9 for x in BASE], min_effect=0.05, alpha=0.05)
    assert faster.verdict is Verdict.FASTER


def test_judge_significant_but_small_change_is_same():
    small = judge(BASE, [x * 1.03 for x in BASE], min_effect=0.05, alpha=0.05)
    assert small.p_value < 0.05
    assert small.verdict is Verdict.SAME
    assert "under the 5% minimum effect" in small.reason


def test_judge_big_move_without_evidence_is_noisy():
    overlapping = judge([1.0, 2.0, 1.0, 2.0, 1.0], [1.1, 2.2, 1.2, 2.1, 1.3], min_effect=0.05, alpha=0.05)
    assert overlapping.verdict is Verdict.NOISY and "overlap" in overlapping.reason
    too_few = judge([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], min_effect=0.05, alpha=0.05)
    assert too_few.verdict is Verdict.NOISY and "too few" in too_few.reason  # 3 vs 3: smallest p is 0.1
    single = judge([1.0], [2.0], min_effect=0.05, alpha=0.05)
    assert single.verdict is Verdict.NOISY and single.p_value is None


def test_judge_inside_noise_floor_is_noisy():
    moved = judge(BASE, [x * 1.10 for x in BASE], min_effect=0.05, alpha=0.05, noise_floor=0.30, noise_source="spread")
    assert moved.verdict is Verdict.NOISY and "noise floor" in moved.reason


def test_thresholds_per_suite():
    t = Thresholds(min_effect=0.05, min_effect_by_suite={"stages": 0.2})
    assert t.min_effect_for("stages") == 0.2 and t.min_effect_for("tiles") == 0.05
    with pytest.raises(ValueError):
        Thresholds(alpha=1.5)


# -- A/A and an injected slowdown, real runs -------------------------------------------------


@pytest.mark.parametrize("first,second", [("base", "aa"), ("aa", "base")])
def test_aa_real_compile_runs_give_no_slower(first, second):
    """Real A/A compile runs with CPU seconds and the machine probe (compile-cpu-*.json): the
    box moved every compile together, the probe with it; no item is SLOWER, nothing gates."""
    cmp = compare_runs(_load(f"compile-cpu-{first}.json"), _load(f"compile-cpu-{second}.json"))
    counts = cmp.counts()
    assert counts[Verdict.SLOWER] == 0 and counts[Verdict.FAILED] == 0
    assert not cmp.has_regression
    assert cmp.compared == 14
    (drift,) = cmp.drifts
    assert drift.kind == "compile" and drift.items == 14 and drift.spread is not None
    assert all(i.decided_by == RUN_RATIO for i in cmp.items)


def test_wall_clock_only_runs_moving_together_gate_fail_closed_saying_nothing_could_tell():
    """The older A/A pair (wall clock only: no CPU seconds, no machine probe, no count) moved +40 %
    as a whole on this shared box (+26 % on the minima of the builds).  Nothing in such records
    tells the machine, its load or the compiler apart, and an uncounted slowdown never passes
    silently: it gates, its words saying why and what would judge it; items are not SLOWER."""
    cmp = compare_runs(_load("ascend-compile-a.json"), _load("ascend-compile-b.json"))
    assert cmp.counts()[Verdict.SLOWER] == 0 and cmp.has_regression
    (shift,) = cmp.gating_shifts
    assert shift.kind == "compile" and shift.change > 0.2
    assert "no in-run machine probe" in shift.words and "no CPU seconds" in shift.words and "fail closed" in shift.words


def test_aa_real_sleep_runs_give_no_slower():
    cmp = compare_runs(_load("sleepy-base.json"), _load("sleepy-aa.json"))
    assert cmp.counts()[Verdict.SLOWER] == 0 and not cmp.has_regression


def test_injected_ten_percent_slowdown_is_slower():
    cmp = compare_runs(_load("sleepy-base.json"), _load("sleepy-slow10.json"))
    kernels = [i for i in cmp.items if i.gates]
    assert len(kernels) == 7
    assert all(i.verdict is Verdict.SLOWER for i in kernels)
    assert all(i.decided_by == VENDOR_RATIO and i.time.verdict is Verdict.SLOWER for i in kernels)
    assert all(0.05 < i.relative.change < 0.15 for i in kernels)
    (vendor,) = [i for i in cmp.items if not i.gates]
    assert vendor.key.case_id.endswith("-vendor") and vendor.verdict is Verdict.SAME
    assert cmp.has_regression and len(cmp.regressions) == 7


def test_per_suite_minimum_effect_silences_the_slowdown():
    thresholds = Thresholds(min_effect=0.05, min_effect_by_suite={"sleepy": 0.25})
    cmp = compare_runs(_load("sleepy-base.json"), _load("sleepy-slow10.json"), thresholds)
    assert not cmp.has_regression
    assert {i.min_effect for i in cmp.items} == {0.25}


# -- in-run references --------------------------------------------------------------------------


def test_vendor_ratio_cancels_clock_drift_and_says_so():
    """The H200 run with every sample 8 % slower, as a GPU whose clocks dropped between processes."""
    base = load_results(H200)
    drifted = _modified(base, _scale(1.08))
    cmp = compare_runs(base, drifted)
    kernels = [i for i in cmp.items if i.gates]
    assert len(kernels) == 14
    for item in kernels:
        assert item.time.verdict is Verdict.SLOWER  # the raw times alone would call it a regression
        assert item.relative.basis == VENDOR_RATIO and item.decided_by == VENDOR_RATIO
        assert item.verdict is Verdict.SAME
        assert "vendor" in item.reference
    (vendor,) = [i for i in cmp.items if not i.gates]
    assert vendor.verdict is Verdict.SLOWER and not vendor.is_regression
    assert not cmp.has_regression
    assert cmp.drifts[0].change == pytest.approx(0.08) and cmp.drifts[0].vendor_change == pytest.approx(0.08)


def test_vendor_ratio_flags_a_kernel_slowdown():
    base = load_results(H200)
    target = "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3"
    slower = _modified(base, _scale(1.10, lambda rec: rec["case_id"] == target))
    cmp = compare_runs(base, slower)
    flagged = [i for i in cmp.items if i.verdict is Verdict.SLOWER]
    assert [i.key.case_id for i in flagged] == [target]
    assert flagged[0].decided_by == VENDOR_RATIO and flagged[0].is_regression


def test_run_ratio_flags_one_slower_compile_item():
    base = _load("ascend-compile-a.json")
    target = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"
    slower = _modified(base, _scale(1.10, lambda rec: rec["case_id"] == target))
    cmp = compare_runs(base, slower)
    item = next(i for i in cmp.items if i.key.case_id == target)
    assert item.verdict is Verdict.SLOWER and item.decided_by == RUN_RATIO
    assert "geometric mean of the 13 other compile items" in item.reference
    assert [i.key.case_id for i in cmp.regressions] == [target]


def test_no_reference_falls_back_to_time():
    base = _load("sleepy-base.json")
    doc = copy.deepcopy(base.document)
    doc["benchmarks"] = [b for b in doc["benchmarks"] if "vendor" not in b["name"]][:2]
    small = parse_results(doc, "small.json")
    cmp = compare_runs(small, _modified(small, _scale(1.2)))
    assert all(i.decided_by == TIME and i.relative is None and i.verdict is Verdict.SLOWER for i in cmp.items)


def test_vendor_library_change_disables_the_vendor_ratio():
    base = load_results(H200)
    doc = copy.deepcopy(base.document)
    doc["machine_info"]["tlbench"]["backends"]["nvidia"]["torch"] = "2.12.0+cu130"
    cmp = compare_runs(base, parse_results(doc, "new.json"))
    assert any("vendor library differs" in n for n in cmp.notes)
    assert all(i.decided_by != VENDOR_RATIO for i in cmp.items)


# -- unpaired items ------------------------------------------------------------------------------


def _failure(rec, stage="compile", error="CompileError: tilelang said no"):
    keep = {k: rec[k] for k in ("schema_version", "backend", "kind", "case_id", "kernel", "problem", "config")}
    return {**keep, "nodeid": rec["fullname"], "status": "failed", "stage": stage, "error": error, "plan": None}


def _without(doc, case_id):
    kept, removed = [], None
    for bench in doc["benchmarks"]:
        if bench["extra_info"]["tlbench"]["case_id"] == case_id:
            removed = {**bench["extra_info"]["tlbench"], "fullname": bench["fullname"]}
        else:
            kept.append(bench)
    doc["benchmarks"] = kept
    return removed


def test_failed_missing_and_new_items():
    base = _load("sleepy-base.json")
    s0, s1, s2 = (f"gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s{n}" for n in range(3))
    base_doc = copy.deepcopy(base.document)
    gone_in_base = _without(base_doc, s2)  # NEW in the new run
    new_doc = copy.deepcopy(base.document)
    failed = _without(new_doc, s0)  # FAILED in the new run
    _without(new_doc, s1)  # MISSING from the new run
    new_doc["tlbench"]["failed"] = [_failure(failed)]
    cmp = compare_runs(parse_results(base_doc, "base.json"), parse_results(new_doc, "new.json"))
    by_case = {i.key.case_id: i for i in cmp.items}
    assert by_case[s0].verdict is Verdict.FAILED and by_case[s0].is_regression
    assert "tilelang said no" in by_case[s0].detail
    assert by_case[s1].verdict is Verdict.MISSING and by_case[s1].is_regression  # not measured: the gate fails closed
    narrower = compare_runs(parse_results(base_doc, "base.json"), parse_results(new_doc, "new.json"), accept_missing=True)
    assert not {i.key.case_id: i for i in narrower.items}[s1].is_regression  # unless a narrower run is accepted
    assert by_case[s2].verdict is Verdict.NEW and not by_case[s2].is_regression
    assert gone_in_base["case_id"] == s2
    assert cmp.has_regression


def test_failing_in_both_runs_is_not_a_new_regression():
    base = _load("sleepy-base.json")
    s0 = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s0"
    docs = []
    for _ in range(2):
        doc = copy.deepcopy(base.document)
        doc["tlbench"]["failed"] = [_failure(_without(doc, s0))]
        docs.append(doc)
    cmp = compare_runs(parse_results(docs[0], "base.json"), parse_results(docs[1], "new.json"))
    item = next(i for i in cmp.items if i.key.case_id == s0)
    assert item.verdict is Verdict.FAILED and not item.is_regression and "also failed in base" in item.detail


# -- refusals ------------------------------------------------------------------------------------


def test_testbed_mismatch_is_refused_then_labelled_on_request():
    base = load_results(H200)
    doc = copy.deepcopy(base.document)
    doc["machine_info"]["tlbench"]["backends"]["nvidia"]["driver"] = "590.10"
    other = parse_results(doc, "other-driver.json")
    with pytest.raises(CompareError, match=r"testbed differs for nvidia: driver 580\.159\.04 -> 590\.10"):
        compare_runs(base, other)
    cmp = compare_runs(base, other, allow_testbed_mismatch=True)
    assert [t.backend for t in cmp.testbed_mismatches] == ["nvidia"]


def test_different_backends_are_refused():
    with pytest.raises(CompareError, match="different backends: .* has ascend, .* has nvidia"):
        compare_runs(_load("ascend-compile-a.json"), load_results(H200))


# -- across backends -----------------------------------------------------------------------------


def test_across_backends_joins_stage_speedups_without_mixing_metrics():
    across = compare_backends([load_results(H200), _load("ascend-compile-a.json")])
    by_name = {s.backend: s for s in across.backends}
    nvidia, ascend = by_name["nvidia"], by_name["ascend"]
    assert nvidia.metric.name == DEVICE_TIME and nvidia.metric.unit == "s" and nvidia.metric.measured
    assert ascend.metric.name == MODELED_CYCLES and ascend.metric.unit == "cycles" and not ascend.metric.measured
    assert len(across.rows) == 14  # 2 tiles x (auto s0..s4, manual, serial), same case ids on both
    case = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s3"
    s1 = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s1"
    for stages in (nvidia, ascend):
        point, ref = stages.point(case), stages.point(s1)
        assert point.reference == s1 and ref.speedup == pytest.approx(1.0)
        assert point.speedup == pytest.approx(ref.value / point.value)
    assert ascend.point(case).value == 5576  # modeled cycles per core, never a time
    assert 1e-6 < nvidia.point(case).value < 1e-3  # seconds
    assert {b.loop_id for b in nvidia.best} == {"auto-s4"} and {b.loop_id for b in ascend.best} == {"auto-s3"}
    assert nvidia.vendor["gemm-1024x1024x1024-f16"] > 0 and not ascend.vendor
    assert [r.loop_id for r in across.rows[:7]] == ["auto-s0", "auto-s1", "auto-s2", "auto-s3", "auto-s4", "manual", "serial"]


def test_across_backends_needs_two_backends():
    with pytest.raises(CompareError, match="needs two backends"):
        compare_backends([load_results(H200)])


def test_across_backends_shows_compile_times_apart_never_as_a_speedup():
    """An NVIDIA compile-only run (the CPU job's) shows its build times per config, labelled as the
    CPU cost of building: no speedup, no "best" kernel, never beside the model as one metric."""
    ascend = _load("ascend-compile-a.json")
    doc = copy.deepcopy(ascend.document)
    for bench in doc["benchmarks"]:
        bench["extra_info"]["tlbench"]["backend"] = "nvidia"
        bench["extra_info"]["tlbench"]["plan"]["schedule_model"] = None
    doc["tlbench"]["backends"] = ["nvidia"]
    across = compare_backends([ascend, parse_results(doc, "nvidia-compile.json")])
    by_name = {s.backend: s for s in across.backends}
    nvidia, model = by_name["nvidia"], by_name["ascend"]
    assert nvidia.metric.name == COMPILE_TIME and nvidia.metric.measured and "not kernel speed" in nvidia.metric.method
    assert nvidia.points and all(p.speedup is None and p.value > 0 for p in nvidia.points) and nvidia.best == ()
    assert model.metric.name == MODELED_CYCLES and model.best


def test_across_backends_reads_one_file_of_two_backends():
    """The CPU main job's own output holds both backends: one file is enough."""
    across = compare_backends([load_results(COMPARE / "compile-cpu2" / "b1.json")])
    assert {s.backend for s in across.backends} == {"nvidia", "ascend"}


def test_fixtures_are_small_and_real():
    for path in COMPARE.glob("*.json"):
        assert path.stat().st_size < 200_000, path
        doc = json.loads(path.read_text())
        assert doc["benchmarks"] and all(b["stats"]["data"] for b in doc["benchmarks"])
        assert not math.isnan(doc["benchmarks"][0]["stats"]["median"])


def test_a_worse_modeled_schedule_gates_by_default_and_is_said_as_a_model():
    base = _load("ascend-compile-a.json")
    target = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s3"

    def edit(rec):
        if rec["case_id"] == target:
            rec["plan"]["schedule_model"]["modeled_cycles_per_core"] = 8085
            rec["plan"]["pipeline"]["loop_ii_cycles_model"] = 245

    new = _modified(base, edit)
    cmp = compare_runs(base, new)
    (change,) = cmp.model_changes
    assert change.key.case_id == target and (change.base_cycles, change.new_cycles) == (5576, 8085)
    (worse,) = cmp.gating_plans
    assert worse.key.case_id == target and worse.verdict == "MODEL WORSE"
    assert "modeled cycles per core: 5,576 -> 8,085 cycles (+45.0%, model)" in worse.model
    assert cmp.has_regression and not cmp.regressions  # the times did not move: the model did
    assert not compare_runs(base, new, Thresholds(gate_model=False)).has_regression

    from tlbench.harness.results.report.report import comparison_markdown

    text = comparison_markdown(cmp)
    assert "| MODEL WORSE | compile-ascend-" + target + " | modeled cycles per core: 5,576 -> 8,085 cycles (+45.0%, model)" in text
    assert "never times" in text
