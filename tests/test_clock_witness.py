"""A device move the SM clock of the item's rounds explains (harness/results/compare/clock_witness.py, compare's rules).

The real pair: the H200 A/A of the main job at bb1a6cf (results/main-job-speed/h200-bb1a6cf/),
two runs with overlap on (auto-1, auto-2), where flash attention ``bm128-bn128-t256-auto-s3``
read SLOWER +6.3 % (1.809 -> 1.924 ms) while NVML read its rounds at 1965 MHz in one run and a
median of 1815 MHz in the other (``sw_power_cap`` in both).  The same files now compare with
exit 0 and that item NOISY, both clocks in its reason.  A real slowdown (the H200 run with one
kernel given a test-only extra kernel of 7 % of its time) still reads SLOWER, and so does the
A/A item given 10 % more time on top of its clock step.  The small records below are fakes made
here to test the rule's own logic, and named as such.
"""

from __future__ import annotations

import copy
import dataclasses

from tlbench.harness.results.compare import clock_witness
from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.files.store import Results, load_results

from history_fixtures import RESULTS

AA = RESULTS / "main-job-speed" / "h200-bb1a6cf"
TRUST = RESULTS / "h200-measurement-trust"
FA = "fa-b2h16-s8192-d128-bf16-bm128-bn128-t256-auto-s3"


def _item(comparison, case_id):
    return next(i for i in comparison.items if i.key.kind == "device" and i.key.case_id == case_id)


def _fake_record(clocks: list[int], attempt_clocks: dict[int, list[int]] | None = None) -> dict:
    """A fake record: only the per-batch telemetry the witness reads."""
    batches = [{"attempt": a, "round": r, "telemetry": {"sm_clock_mhz": c, "throttle_reasons": ["sw_power_cap"]}}
               for a, cs in (attempt_clocks or {0: clocks}).items() for r, c in enumerate(cs)]
    return {"measurement": {"batches": batches}}


def test_round_clocks_read_the_last_attempt_and_need_two_rounds():
    rec = _fake_record([], {0: [1700, 1700, 1700], 1: [1965, 1950, 1965]})
    assert clock_witness.round_clocks(rec) == [1965, 1950, 1965]
    assert clock_witness.round_clocks(_fake_record([1965])) is None
    assert clock_witness.round_clocks({"measurement": {"batches": [{"attempt": 0, "telemetry": None}] * 3}}) is None
    assert clock_witness.round_clocks({}) is None


def test_a_clock_step_explains_only_a_move_it_covers_in_its_own_direction():
    base, new = _fake_record([1965] * 3), _fake_record([1815] * 3)
    ratio = clock_witness.clock_ratio(base, new)
    step = clock_witness.explained(0.063, ratio, 1.0, False, 0.05, base, new)
    assert step is not None and abs(step.corrected - (1.063 * 1815 / 1965 - 1)) < 1e-12
    assert "1965 -> 1815 MHz" in step.words() and "sw_power_cap" in step.words()
    assert clock_witness.explained(-0.063, ratio, 1.0, False, 0.05, base, new) is None  # faster at a lower clock
    assert clock_witness.explained(0.20, ratio, 1.0, False, 0.05, base, new) is None  # more than the clock explains
    close = _fake_record([1950] * 3)  # a 0.8 % step is no step
    assert clock_witness.explained(0.06, clock_witness.clock_ratio(base, close), 1.0, False, 0.05, base, close) is None
    # relative to a run whose every item's clock fell as much: the item's own clock did not step
    assert clock_witness.explained(0.063, ratio, ratio, True, 0.05, base, new) is None


def test_the_h200_same_mode_pair_reads_no_regression_and_the_fa_item_noisy():
    comparison = compare_runs(load_results(AA / "aa-auto-1.json.gz"), load_results(AA / "aa-auto-2.json.gz"))
    item = _item(comparison, FA)
    assert item.verdict.value == "NOISY"
    assert "median 1965 -> 1815 MHz" in item.decided.reason and "sw_power_cap" in item.decided.reason
    assert not [i for i in comparison.items if i.verdict.value in ("SLOWER", "FASTER")]


def test_a_real_slowdown_on_the_h200_still_reads_slower():
    comparison = compare_runs(load_results(TRUST / "slowdown-base.json.gz"), load_results(TRUST / "slowdown-7pct.json.gz"))
    assert [i.verdict.value for i in comparison.items if i.verdict.value in ("SLOWER", "FASTER")] == ["SLOWER"]


def _slowed(results: Results, case_id: str, factor: float) -> Results:
    """The same run with one item's samples and rounds made ``factor`` slower (clocks untouched)."""
    records = copy.deepcopy(list(results.records))
    for rec in records:
        if rec["case_id"] == case_id and rec["kind"] == "device":
            rec["samples_s"] = [s * factor for s in rec["samples_s"]]
            m = rec["measurement"]
            m["round_medians_s"] = [s * factor for s in m["round_medians_s"]]
            for b in m["batches"]:
                b["median_s"] *= factor
            rec["summary"] = {**rec["summary"], "median": rec["summary"]["median"] * factor}
    return dataclasses.replace(results, records=tuple(records))


def test_a_slowdown_beyond_the_clock_step_still_reads_slower_on_the_real_pair():
    base, new = load_results(AA / "aa-auto-1.json.gz"), load_results(AA / "aa-auto-2.json.gz")
    item = _item(compare_runs(base, _slowed(new, FA, 1.10)), FA)
    assert item.verdict.value == "SLOWER", item.decided.reason
