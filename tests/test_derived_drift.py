"""Records written before the measurement loop kept a drift verdict get one from their raw batches
at read time, and compare judges them with it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.files.derived_drift import with_derived_drift
from tlbench.harness.results.files.store import parse_results

FIXTURE = Path(__file__).resolve().parents[1] / "results" / "h200-gemm-stages" / "stages.json"  # a real H200 run with its batches
SHIFTED_MS = (2.126, 2.131, 2.265, 2.257, 2.256)  # batch medians of one item with a level shift inside it (two batches, then three)


def test_a_level_shift_in_the_batches_becomes_a_drift_verdict():
    rec = {"measurement": {"batches": [{"median_s": ms / 1e3} for ms in SHIFTED_MS]}, "summary": {"status": "clean"}}
    out = with_derived_drift(rec)
    assert out["measurement"]["drift"]["kind"] == "shift" and out["measurement"]["drift_derived"] is True
    assert abs(out["measurement"]["drift"]["relative"] - 0.060) < 0.001 and out["summary"]["status"] == "DRIFT"
    assert rec["measurement"].get("drift") is None  # the input is not changed
    clean = {"measurement": {"batches": [{"median_s": 1e-3}] * 4}}
    assert with_derived_drift(clean)["measurement"]["drift"] is None
    recorded = {"measurement": {"drift": None, "batches": rec["measurement"]["batches"]}}
    assert with_derived_drift(recorded) is recorded  # the loop's own verdict stands


def test_an_older_record_without_a_drift_key_is_judged_with_its_derived_drift():
    doc = json.loads(FIXTURE.read_text())
    old = copy.deepcopy(doc)
    rec = next(b["extra_info"]["tlbench"] for b in old["benchmarks"]
               if (b["extra_info"]["tlbench"].get("measurement") or {}).get("batches") and b["extra_info"]["tlbench"]["config"])
    m = rec["measurement"]
    m.pop("drift", None)
    m.pop("first_attempt_drift", None)
    scale = SHIFTED_MS[0] / 1e3 / m["batches"][0]["median_s"]
    for batch, ms in zip(m["batches"], SHIFTED_MS * 10):
        batch["median_s"] = ms / 1e3
    del scale
    parsed = parse_results(old, "old.json")
    read = next(r for r in parsed.records if r["case_id"] == rec["case_id"])
    assert read["measurement"]["drift"]["kind"] == "shift" and read["summary"]["status"] == "DRIFT"
    comparison = compare_runs(parse_results(doc, "base.json"), parsed)
    assert comparison.items  # judged; the drift widens that item's resolution (verdicts.drift_of)
