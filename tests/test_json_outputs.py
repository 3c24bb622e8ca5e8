"""Every ``--json`` of a command that prints a table validates against its schema in
harness/results/schema/ and carries what the table shows (num_stages, plan, % of peak or of
bandwidth, vendor ratio; the stage report's verdict and vendor distance; history's own runs),
on real committed results files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from json_schema_subset import errors
from tlbench.harness.cli import main
from tlbench.harness.results.report.json_output import compare_output_schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "harness" / "results" / "schema"
STAGES = ROOT / "results" / "h200-gemm-stages" / "stages.json"
RMSNORM = ROOT / "results" / "h200-parity" / "rmsnorm-onepass.json.gz"  # a user's kernel_sweep, memory-bound
GEMM_WS = ROOT / "results" / "h200-parity" / "gemm-ws.json.gz"  # a user's kernel_sweep over num_stages
CPU_BOTH = ROOT / "tests" / "fixtures" / "compare" / "compile-cpu2" / "b1.json"  # the CPU job: both backends, compile only
ASCEND_A = ROOT / "tests" / "fixtures" / "compare" / "ascend-compile-a.json"


def _json(capsys, *argv) -> dict:
    code = main([str(a) for a in argv])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def _valid(document: dict, schema: str) -> dict:
    """Against the schema file; compare's with the verdict words of verdict_words.py as its enum."""
    loaded = compare_output_schema() if schema == "compare-output.schema.json" else json.loads((SCHEMAS / schema).read_text())
    assert errors(document, loaded) == []
    return document


def test_report_json_carries_stages_plan_peak_and_vendor_ratio(capsys):
    doc = _valid(_json(capsys, "report", STAGES, "--json"), "report-output.schema.json")
    items = {i["case_id"]: i for i in doc["items"]}
    s3 = items["gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3"]
    vendor = items["gemm-8192x8192x8192-f16-vendor"]
    assert s3["num_stages"] == 3 and s3["config_id"] == "bm128-bn256-bk64-t256-auto-s3" and s3["problem_id"] == "gemm-8192x8192x8192-f16"
    assert s3["plan"]["summary"].startswith("warp-spec") and 60 < s3["pct_of_peak"] < 80
    assert s3["vendor_ratio"] == pytest.approx(vendor["median_s"] / s3["median_s"]) and s3["vendor_case_id"] == vendor["case_id"]
    assert vendor["vendor"] and vendor["num_stages"] is None and vendor["vendor_ratio"] is None


def test_report_json_reads_a_memory_bound_kernel_against_the_bandwidth(capsys):
    doc = _valid(_json(capsys, "report", RMSNORM, "--json"), "report-output.schema.json")
    kernel = next(i for i in doc["items"] if not i["vendor"])
    assert kernel["bound"] == "memory" and 0 < kernel["pct_of_bandwidth"] < 100 and kernel["gbps"] > 100


def test_report_stages_json_works_for_a_users_sweep_and_says_how_far_from_the_vendor(capsys):
    doc = _valid(_json(capsys, "report", GEMM_WS, "--stages", "--json"), "stages-output.schema.json")
    swept = [g for g in doc["groups"] if sum(1 for v in g["variants"] if v["median_s"]) >= 2]
    assert swept and doc["vendor_items"] >= 1
    for group in swept:
        best = min((v for v in group["variants"] if v["median_s"]), key=lambda v: v["median_s"])
        assert group["vendor"]["vendor_ratio"] == pytest.approx(group["vendor"]["median_s"] / best["median_s"])
        assert group["verdict"]["recommended"] is not None
    assert not any("vendor library item" in left for left in doc["left_out"])


def test_report_stages_text_has_no_internal_names_or_raw_floats(capsys):
    assert main(["report", str(GEMM_WS), "--stages"]) == 0
    out = capsys.readouterr().out
    assert "fit_latency_ratio" not in out and "harness.analysis" not in out and "suites/gemm/test_stages.py" not in out
    assert "e-05" not in out and "e-06" not in out and "0000000" not in out  # times are printed as times
    assert "vs vendor: the best" in out and "no tile config" not in out


def test_compare_json_carries_plan_and_model_verdicts(capsys):
    doc = _valid(json.loads(subprocess.run(
        [sys.executable, "-m", "tlbench.harness.cli", "compare", str(ASCEND_A), str(ASCEND_A.with_name("ascend-compile-b.json")), "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT).stdout), "compare-output.schema.json")
    assert "plans" in doc and "plan_counts" in doc and "model_changes" in doc
    assert sum(doc["plan_counts"].values()) > 0  # every case's plan was judged; the changed ones are listed


def test_across_backends_reads_the_cpu_jobs_own_file_and_its_json_validates(capsys):
    doc = _valid(_json(capsys, "compare", "--across-backends", CPU_BOTH, "--json"), "across-output.schema.json")
    assert {b["backend"] for b in doc["backends"]} == {"nvidia", "ascend"}


def test_history_show_json_gives_each_case_its_own_last_runs(capsys, tmp_path):
    db = tmp_path / "h.sqlite"
    small = ROOT / "results" / "h200-tile-sweep" / "focus-8192.json"  # 9 items, one run
    assert main(["history", "add", str(STAGES), str(small), "--history", str(db)]) == 0
    capsys.readouterr()
    doc = _valid(_json(capsys, "history", "show", "--history", db, "--json", "--last", "3"), "history-output.schema.json")
    runs_of = {s["case_id"]: {p["run_id"] for p in s["points"]} for s in doc["series"]}
    assert len(set(map(frozenset, runs_of.values()))) == 2  # each case its own run, not the history's last runs
    assert all(len(s["points"]) == s["runs"] for s in doc["series"])


def test_compare_history_json_is_json_and_validates(capsys, tmp_path):
    db = tmp_path / "h.sqlite"
    sleepy = ROOT / "tests" / "fixtures" / "compare"
    assert main(["history", "add", str(sleepy / "sleepy-base.json"), str(sleepy / "sleepy-aa.json"), "--history", str(db)]) == 0
    capsys.readouterr()
    code = main(["compare", "--history", str(db), str(sleepy / "sleepy-slow10.json"), "--json"])
    doc = _valid(json.loads(capsys.readouterr().out), "compare-output.schema.json")
    assert code == doc["exit_code"] == 1 and doc["base"]["path"] == str(db) and doc["base"]["history"]["statistic"] == "best"
    assert doc["references"] and any(i["verdict"] == "SLOWER" for i in doc["items"])


def test_a_kernel_that_stages_its_own_buffers_gets_its_budget_from_the_bytes_per_stage(capsys):
    """gemm_ws versions nothing (1/1/1 at every depth): its shared tiles carry a stage dimension.
    160 KiB at num_stages 4 and 224 KiB at 6 of 227 KiB: 32 KiB a stage, so 6 fit and 7 do not."""
    doc = _json(capsys, "report", GEMM_WS, "--stages", "--json")
    (group,) = [g for g in doc["groups"] if g["problem"].startswith("M1024") and len(g["variants"]) == 2
                and g["tile"] == "block_M128 block_N128 block_K64 consumers2 deferred1 group_m8 staged1"]
    assert [v["onchip_bytes"] for v in group["variants"]] == [160 * 1024, 224 * 1024]
    assert group["verdict"]["budget_max_stages"] == 6
