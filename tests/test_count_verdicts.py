"""The instruction-count verdict (harness/results/compile_gate/count_verdicts.py): its rule on numbers, and
in a real compare: its rows sit beside the time verdicts, gate, and never compare counts of
different counters or methods."""

from __future__ import annotations

import copy
from pathlib import Path

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compile_gate.count_verdicts import COUNT_FLOOR, INSTRUCTIONS, judge_counts
from tlbench.harness.results.compare.judgement import Verdict
from tlbench.harness.results.report.report import comparison_markdown
from tlbench.harness.results.files.store import load_results, parse_results

COMPARE = Path(__file__).parent / "fixtures" / "compare"
COUNTED = 8  # the fixture's items that get a count


def test_the_rule_on_counts():
    assert judge_counts([812_439_209], [813_243_769])[0].verdict is Verdict.SAME  # +0.1 %: a real A/A pair of one item
    slower, rule = judge_counts([800_000_000], [824_000_000])
    assert slower.verdict is Verdict.SLOWER and "instructions +3.00%" in slower.reason and rule.startswith("instruction count")
    assert judge_counts([800_000_000], [776_000_000])[0].verdict is Verdict.FASTER
    assert judge_counts([800_000_000], [806_000_000])[0].verdict is Verdict.SAME  # +0.75 %: under the 1 % minimum
    noisy = judge_counts([800_000_000, 880_000_000], [900_000_000])[0]  # the item's own counts spread 10 %
    assert noisy.verdict is Verdict.NOISY and "spread of the item's own counts" in noisy.reason
    assert judge_counts([100], [101], floor=0.02, floor_words="spread")[0].verdict is Verdict.NOISY
    assert COUNT_FLOOR < 0.01


def _with_counts(doc, change=lambda case_id, count: count, counter="callgrind", method=None):
    out = copy.deepcopy(doc)
    for i, bench in enumerate(out["benchmarks"]):
        rec = bench["extra_info"]["tlbench"]
        if i < COUNTED:
            count = 700_000_000 + 10_000_000 * i
            rec["instructions"] = {"counter": counter, "event": "Ir", "lowering": [int(change(rec["case_id"], count))],
                                   **({"method": method} if method else {})}
        else:
            rec["instructions"] = {"absent": "not in the callgrind subset"}
    return out


def test_a_three_percent_item_is_slower_alone_beside_its_time_verdict():
    base = load_results(COMPARE / "ascend-compile-a.json")
    target = base.records[2]["case_id"]
    b = parse_results(_with_counts(base.document), "base.json")
    n = parse_results(_with_counts(base.document, lambda case_id, c: c * 1.03 if case_id == target else c + 7), "new.json")
    cmp = compare_runs(b, n)
    counted = [i for i in cmp.items if i.metric == INSTRUCTIONS]
    assert len(counted) == COUNTED
    assert [(i.key.case_id, i.verdict) for i in counted if i.verdict is not Verdict.SAME] == [(target, Verdict.SLOWER)]
    assert [i.key.case_id for i in cmp.regressions if i.metric == INSTRUCTIONS] == [target]
    assert len([i for i in cmp.items if i.metric == "time"]) == len(base.records)  # the time verdicts are all still there
    text = comparison_markdown(cmp)
    assert f"| SLOWER | compile-ascend-{target} [instructions] | " in text and "M instr" in text


def test_a_whole_run_move_of_the_counts_is_a_shift_that_gates():
    base = load_results(COMPARE / "ascend-compile-a.json")
    b = parse_results(_with_counts(base.document), "base.json")
    n = parse_results(_with_counts(base.document, lambda case_id, c: c * 1.05), "new.json")
    (shift,) = [s for s in compare_runs(b, n).shifts if "instructions" in s.words]
    assert shift.gates and shift.words.startswith("WHOLE-RUN SHIFT all suites/ascend/compile (instructions)")


def test_counts_of_different_counters_are_not_compared():
    base = load_results(COMPARE / "ascend-compile-a.json")
    b = parse_results(_with_counts(base.document), "base.json")
    n = parse_results(_with_counts(base.document, counter="hardware"), "new.json")
    cmp = compare_runs(b, n)
    assert not [i for i in cmp.items if i.metric == INSTRUCTIONS]
    assert sum("counted by different counters" in note for note in cmp.notes) == COUNTED


def test_counts_of_different_methods_are_not_compared():
    """A count taken after the items its child counted before it (a record with no ``method``)
    holds what they left behind: never judged against a count taken in a fork of its own."""
    base = load_results(COMPARE / "ascend-compile-a.json")
    b = parse_results(_with_counts(base.document), "base.json")
    method = "callgrind, a fork per item after the warm-up: the backend's own warm-up kernels"
    n = parse_results(_with_counts(base.document, lambda case_id, c: c * 0.94, method=method), "new.json")
    cmp = compare_runs(b, n)
    assert not [i for i in cmp.items if i.metric == INSTRUCTIONS]
    assert not [s for s in cmp.shifts if "instructions" in s.words]  # the -6 % is the method, not a shift
    words = [note for note in cmp.notes if "counted by different methods" in note]
    assert len(words) == COUNTED and "the older method: each item after the items its child counted before it" in words[0]
    same = parse_results(_with_counts(base.document, method=method), "same.json")
    assert len([i for i in compare_runs(same, same).items if i.metric == INSTRUCTIONS]) == COUNTED


def _slower_machine(doc, factor):
    out = copy.deepcopy(doc)
    for bench in out["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        for key in ("samples_s", "cpu_samples_s"):
            if rec.get(key):
                rec[key] = [v * factor for v in rec[key]]
    return out


def test_a_compile_time_shift_whose_counts_did_not_move_is_the_machines():
    base = load_results(COMPARE / "compile-cpu-base.json")
    b = parse_results(_with_counts(base.document), "base.json")
    slow = parse_results(_with_counts(_slower_machine(base.document, 1.4)), "slow.json")
    cmp = compare_runs(b, slow)
    time_shifts = [s for s in cmp.shifts if "instructions" not in s.words.split(":")[0]]
    assert time_shifts and all(s.verdict == "MACHINE" and not s.gates for s in time_shifts)
    assert "but the instructions of its" in time_shifts[0].words and "the machine's speed, not the compiler's work" in time_shifts[0].words
    assert not cmp.gating_shifts
    both = parse_results(_with_counts(_slower_machine(base.document, 1.4), lambda case_id, c: c * 1.05), "both.json")
    moved = compare_runs(b, both)
    assert any(s.verdict == "SHIFT" and s.gates and "instructions" not in s.words.split(":")[0] for s in moved.shifts)


CPU_COUNTS = COMPARE / "cpu-counts"


def test_two_real_counted_nights_call_every_count_same():
    """Two real nights of the CPU job on the 2-core box (the second at a quarter of the first's
    load): every counted item SAME on its instructions, every plan SAME PLAN; the flash-attention
    item counted only on the first night has no count verdict."""
    for backend in ("ascend", "nvidia"):
        cmp = compare_runs(load_results(CPU_COUNTS / f"n1-{backend}-cpu.json"), load_results(CPU_COUNTS / f"n2-{backend}-cpu.json"))
        counted = [i for i in cmp.items if i.metric == INSTRUCTIONS]
        assert counted and {i.verdict for i in counted} == {Verdict.SAME}
        assert max(abs(i.time.change) for i in counted) < COUNT_FLOOR
        assert {p.verdict for p in cmp.plans} == {"SAME PLAN"}
        assert not [s for s in cmp.shifts if s.gates]
        assert not any("fa-" in i.key.case_id for i in counted)


def test_one_items_real_change_does_not_keep_a_load_shift_standing():
    """The witness is the counted items' geometric mean: one item's real +3 % (the other seven
    unchanged, a mean of about +0.4 %) leaves a +40 % compile-time move the machine's, and that
    item still gets its own SLOWER; counts that moved the other way are no witness either."""
    base = load_results(COMPARE / "compile-cpu-base.json")
    b = parse_results(_with_counts(base.document), "base.json")
    target = base.records[0]["case_id"]
    one = parse_results(_with_counts(_slower_machine(base.document, 1.4), lambda case_id, c: c * 1.03 if case_id == target else c), "one.json")
    cmp = compare_runs(b, one)
    time_shifts = [s for s in cmp.shifts if "instructions" not in s.words.split(":")[0]]
    assert time_shifts and all(s.verdict == "MACHINE" and not s.gates for s in time_shifts)
    assert [i.key.case_id for i in cmp.regressions if i.metric == INSTRUCTIONS] == [target]
    opposite = parse_results(_with_counts(_slower_machine(base.document, 1.4), lambda case_id, c: c * 0.95), "opposite.json")
    opposite_shifts = [s for s in compare_runs(b, opposite).shifts if "instructions" not in s.words.split(":")[0]]
    assert opposite_shifts and all(s.verdict == "MACHINE" for s in opposite_shifts)
