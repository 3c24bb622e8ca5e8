"""The gate's bad-input and injection battery: each defect it found, on real files.

Every case runs the real ``tlbench`` command in a subprocess on a committed run
(tests/fixtures/compare/cpu-counts: a real CPU night counted under callgrind; the
compile-cpu2 pair) with one field changed, and asserts the exit status and the words.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COUNTS = ROOT / "tests" / "fixtures" / "compare" / "cpu-counts" / "n1-nvidia-cpu.json"


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "tlbench.harness.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def _count_changed(tmp_path: Path, store) -> tuple[str, str]:
    """BASE is the real counted night; NEW the same night with its first item's count +3 %,
    stored as ``store(count)``.  Returns (that item's case id, the count as it was)."""
    doc = json.loads(COUNTS.read_text())
    (tmp_path / "base.json").write_text(json.dumps(doc))
    rec = doc["benchmarks"][0]["extra_info"]["tlbench"]
    count = rec["instructions"]["lowering"][0]
    rec["instructions"]["lowering"] = [store(count)]
    (tmp_path / "new.json").write_text(json.dumps(doc))
    return rec["case_id"], count


@pytest.mark.parametrize("store", ["int", "integral-float"])
def test_a_three_percent_count_on_one_item_exits_1_however_it_is_stored(tmp_path, store):
    as_stored = {"int": lambda c: round(c * 1.03), "integral-float": lambda c: float(round(c * 1.03))}[store]
    case_id, _ = _count_changed(tmp_path, as_stored)
    done = _run(tmp_path, "compare", "base.json", "new.json")
    assert done.returncode == 1, (done.stdout[-1500:], done.stderr[-800:])
    slower = [ln.split() for ln in done.stdout.splitlines() if ln.strip().startswith("SLOWER ") and "[instructions]" in ln]
    assert len(slower) == 1 and case_id.endswith(slower[0][1]) and slower[0][2] == "[instructions]", done.stdout
    assert "+3.00%" in slower[0], slower


@pytest.mark.parametrize("store", ["nan", "negative", "string", "fraction", "zero", "a-number-not-a-list"])
def test_a_malformed_count_is_refused_in_words_never_dropped(tmp_path, store):
    as_stored = {"nan": lambda c: math.nan, "negative": lambda c: -c, "string": lambda c: str(c),
                 "fraction": lambda c: c * 1.03 + 0.5, "zero": lambda c: 0, "a-number-not-a-list": None}[store]
    if as_stored is None:
        doc = json.loads(COUNTS.read_text())
        (tmp_path / "base.json").write_text(json.dumps(doc))
        rec = doc["benchmarks"][0]["extra_info"]["tlbench"]
        rec["instructions"]["lowering"] = rec["instructions"]["lowering"][0]
        (tmp_path / "new.json").write_text(json.dumps(doc))
        case_id = rec["case_id"]
    else:
        case_id, _ = _count_changed(tmp_path, as_stored)
    for argv in (["compare", "base.json", "new.json"], ["report", "new.json"]):
        done = _run(tmp_path, *argv)
        assert done.returncode == 2, (argv, done.stdout[-800:], done.stderr[-800:])
        line = _one_line(done)
        assert "new.json" in line and case_id in line and "instructions.lowering" in line, line
        assert "re-count" in line or "re-run" in line, line


AA = ROOT / "results" / "h200-measurement-trust" / "aa"  # real H200 A/A runs with per-batch NVML telemetry


def _device_slower(tmp_path: Path, edit) -> str:
    """BASE a real H200 run, NEW its A/A partner with the first device item made 10 % slower
    (its samples, rounds and ratios to the vendor item: so compare asks the clock witness),
    then ``edit(measurement, first batch)``.  Returns the item's case id."""
    doc = json.loads(gzip.decompress((AA / "aa2.json.gz").read_bytes()))
    rec = next(b["extra_info"]["tlbench"] for b in doc["benchmarks"] if b["extra_info"]["tlbench"]["kind"] == "device")
    m = rec["measurement"]
    rec["samples_s"] = [s * 1.1 for s in rec["samples_s"]]
    m["round_medians_s"] = [s * 1.1 for s in m["round_medians_s"]]
    m["vs_vendor_rounds"] = [s * 1.1 for s in m["vs_vendor_rounds"]]
    for batch in m["batches"]:
        batch["median_s"] *= 1.1
    edit(m, m["batches"][0])
    (tmp_path / "base.json").write_bytes(gzip.decompress((AA / "aa1.json.gz").read_bytes()))
    (tmp_path / "new.json").write_text(json.dumps(doc))
    return rec["case_id"]


def _put(key, value, inside=None):
    def edit(m, batch):
        (batch[inside] if inside else batch)[key] = value
    return edit


# name -> (edit of the slowed item's measurement or first batch, the field named)
BAD_DEVICE_FIELDS = {
    "telemetry-a-string": (_put("telemetry", "hot"), "batches[0].telemetry"),
    "telemetry-a-list": (_put("telemetry", [1980]), "batches[0].telemetry"),
    "sm-clock-a-string": (_put("sm_clock_mhz", "1980", "telemetry"), "batches[0].telemetry.sm_clock_mhz"),
    "sm-clock-a-list": (_put("sm_clock_mhz", [1980], "telemetry"), "batches[0].telemetry.sm_clock_mhz"),
    "sm-clock-nan": (_put("sm_clock_mhz", math.nan, "telemetry"), "batches[0].telemetry.sm_clock_mhz"),
    "sm-clock-negative": (_put("sm_clock_mhz", -1980, "telemetry"), "batches[0].telemetry.sm_clock_mhz"),
    "throttle-reasons-a-number": (_put("throttle_reasons", 5, "telemetry"), "batches[0].telemetry.throttle_reasons"),
    "throttle-reasons-numbers": (_put("throttle_reasons", [5], "telemetry"), "batches[0].telemetry.throttle_reasons"),
    "attempt-a-string": (_put("attempt", "zero"), "batches[0].attempt"),
    "attempt-a-fraction": (_put("attempt", 1.5), "batches[0].attempt"),
    "attempt-negative": (_put("attempt", -1), "batches[0].attempt"),
    "dropped-a-string": (_put("dropped", "yes"), "batches[0].dropped"),
    "criterion-a-string": (lambda m, b: m.__setitem__("criterion", "median-ci"), "criterion"),
    "drift-threshold-a-string": (lambda m, b: m.__setitem__("drift_threshold", "2%"), "drift_threshold"),
}


def test_the_slowed_device_item_is_a_regression(tmp_path):
    """The control of the cases below: with every field as the run wrote it, the pair exits 1."""
    case_id = _device_slower(tmp_path, lambda m, b: None)
    done = _run(tmp_path, "compare", "base.json", "new.json")
    assert done.returncode == 1 and "1 regression(s); 1 SLOWER" in done.stdout, (done.stdout[-800:], done.stderr)
    assert case_id.startswith("gemm-8192x8192x8192-f16-bm128-bn128-bk32-t128-auto-s0")


@pytest.mark.parametrize("case", sorted(BAD_DEVICE_FIELDS))
def test_a_device_field_of_the_wrong_type_is_bad_input_never_a_crash(tmp_path, case):
    edit, field = BAD_DEVICE_FIELDS[case]
    case_id = _device_slower(tmp_path, edit)
    for argv in (["compare", "base.json", "new.json"], ["report", "new.json"]):
        done = _run(tmp_path, *argv)
        assert done.returncode == 2, (argv, done.stdout[-800:], done.stderr[-800:])
        line = _one_line(done)
        assert "new.json" in line and case_id in line and f"field {field} is" in line and "re-run" in line, line


B2 = ROOT / "tests" / "fixtures" / "compare" / "compile-cpu2" / "b2.json"  # a real CPU night, both backends
PARTIAL = ROOT / "results" / "cpu-shards" / "partial.json.gz"  # a real merge with shard 2 missing (tlbench.partial)


def _runs_stored(db: Path) -> list[tuple]:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT source, partial FROM runs").fetchall()
    finally:
        conn.close()


def test_history_add_refuses_a_run_no_reader_can_read(tmp_path):
    """An all-zero run was stored, then ``history show`` could read none of it (exit 2)."""
    doc = json.loads(B2.read_text())
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        rec["samples_s"] = [0.0] * len(rec["samples_s"])
    (tmp_path / "zero.json").write_text(json.dumps(doc))
    (tmp_path / "good.json").write_bytes(B2.read_bytes())
    done = _run(tmp_path, "history", "add", "zero.json", "good.json", "--history", "h.sqlite")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    refused = [ln for ln in done.stdout.splitlines() if ln.startswith("not added zero.json")]
    assert len(refused) == 1 and "0 s" in refused[0] and "re-run" in refused[0], done.stdout
    assert [s for s, _ in _runs_stored(tmp_path / "h.sqlite")] == ["good.json"]  # the usable file is still stored
    shown = _run(tmp_path, "history", "show", "--history", "h.sqlite")
    assert shown.returncode == 0 and "unreadable" not in shown.stdout, (shown.stdout[-800:], shown.stderr)


def test_history_add_of_a_partial_run_says_so_and_needs_allow_partial(tmp_path):
    (tmp_path / "partial.json.gz").write_bytes(PARTIAL.read_bytes())
    done = _run(tmp_path, "history", "add", "partial.json.gz", "--history", "h.sqlite")
    assert done.returncode == 2, (done.stdout, done.stderr)
    line = next(ln for ln in done.stdout.splitlines() if "partial.json.gz" in ln)
    assert line.startswith("not added") and "PARTIAL" in line and "--allow-partial" in line, line
    assert not (tmp_path / "h.sqlite").exists() or _runs_stored(tmp_path / "h.sqlite") == []
    allowed = _run(tmp_path, "history", "add", "partial.json.gz", "--history", "h.sqlite", "--allow-partial")
    assert allowed.returncode == 0, (allowed.stdout, allowed.stderr)
    line = next(ln for ln in allowed.stdout.splitlines() if "partial.json.gz" in ln)
    assert line.startswith("added") and "PARTIAL" in line, line
    assert _runs_stored(tmp_path / "h.sqlite") == [("partial.json.gz", 1)]  # stored, labelled partial


def test_baseline_update_replaces_a_baseline_only_with_force(tmp_path):
    """README: ``--force`` is the only way to write into the baseline directory over a file."""
    (tmp_path / "night1.json").write_bytes(B2.read_bytes())
    doc = json.loads(B2.read_text())
    doc["datetime"] = "2026-12-01T00:00:00"
    (tmp_path / "night2.json").write_text(json.dumps(doc))
    first = _run(tmp_path, "baseline", "update", "night1.json", "--out-dir", "baselines")
    assert first.returncode == 0 and first.stdout.count("created ") == 2, (first.stdout, first.stderr)
    before = {p.name: p.read_bytes() for p in (tmp_path / "baselines").iterdir()}
    refused = _run(tmp_path, "baseline", "update", "night2.json", "--out-dir", "baselines")
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    line = _one_line(refused)
    assert "--force" in line and "baselines/" in line and "replace" in line, line
    assert {p.name: p.read_bytes() for p in (tmp_path / "baselines").iterdir()} == before  # nothing written
    forced = _run(tmp_path, "baseline", "update", "night2.json", "--out-dir", "baselines", "--force")
    assert forced.returncode == 0 and forced.stdout.count("replaced ") == 2, (forced.stdout, forced.stderr)


def test_baseline_update_refuses_a_partial_run(tmp_path):
    """A partial baseline is one compare then refuses: never written, --force or not."""
    (tmp_path / "partial.json.gz").write_bytes(PARTIAL.read_bytes())
    for extra in ((), ("--force",)):
        done = _run(tmp_path, "baseline", "update", "partial.json.gz", "--out-dir", "baselines", *extra)
        assert done.returncode == 2, (extra, done.stdout, done.stderr)
        line = _one_line(done)
        assert "PARTIAL" in line and "baseline" in line, line
        assert not (tmp_path / "baselines").exists()


def test_report_of_a_partial_run_says_partial(tmp_path):
    """A report of a partial run (a real merge with shard 2 missing) says so first and last, and in its markdown."""
    (tmp_path / "partial.json.gz").write_bytes(PARTIAL.read_bytes())
    done = _run(tmp_path, "report", "partial.json.gz", "--markdown", "out.md")
    assert done.returncode == 0, (done.stdout[-800:], done.stderr)
    lines = done.stdout.strip().splitlines()
    assert "PARTIAL" in lines[1] and "PARTIAL" in lines[-1], (lines[:3], lines[-1])
    assert any(ln.startswith("note: partial.json.gz is PARTIAL") and "missing" in ln for ln in lines), lines[:6]
    assert "PARTIAL" in (tmp_path / "out.md").read_text()
    complete = _run(tmp_path, "report", str(B2))
    assert complete.returncode == 0 and "PARTIAL" not in complete.stdout


def test_the_exit_codes_are_in_tlbench_help(tmp_path):
    done = _run(tmp_path, "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "Exit codes:" in text, text[-600:]
    codes = text[text.index("Exit codes:"):]
    for words in ("0 done, or no regression", "1 a regression", "2 unusable input", "3 internal error", "130 interrupted"):
        assert words in codes, (words, codes)


def test_the_remeasured_items_of_one_backend_of_a_two_backend_run_are_judged_against_its_baseline():
    """The night's re-measurement of a two-backend ``--from-results`` run is one pytest process
    of both backends (``--tlbench-backend`` as the night's) holding one backend's flagged items:
    its restriction to those items was compared with that backend's baseline and refused as
    "different backends" (exit 2, no summary).  Here the real CPU night b2 (both backends)
    restricted to its nvidia items, against the nvidia baseline of b1."""
    from tlbench.harness.results.nightly import remeasure
    from tlbench.harness.results.compare.compare import compare_runs
    from tlbench.harness.results.files.store import parse_results, split_by_backend

    base = parse_results(split_by_backend(json.loads((B2.parent / "b1.json").read_text()))["nvidia"], "nvidia-cpu.json")
    rerun = parse_results(json.loads(B2.read_text()), "remeasure.json")
    keys = [k for k in (remeasure._key({**r, "fullname": r.get("fullname")}) for r in rerun.records) if k.backend == "nvidia"]
    restricted = parse_results(remeasure.restrict(rerun.document, keys), "nvidia-cpu-remeasured.json")
    assert restricted.backends == ("nvidia",) and len(restricted.records) == 14
    comparison = compare_runs(base, restricted)
    assert comparison.compared == 14


def test_the_nights_first_line_says_the_comparison_was_refused_when_baseline_and_history_are_there(tmp_path):
    """Baselines and a history both present, the comparison refused (NEW took 3 compile rounds,
    the baselines 5: another measurement method): the first line said "no baseline and no history"."""
    assert _run(tmp_path, "baseline", "update", str(B2.parent / "b1.json"), "--out-dir", "base").returncode == 0
    assert _run(tmp_path, "history", "add", str(B2.parent / "b1.json"), "--history", "h.sqlite").returncode == 0
    doc = json.loads(B2.read_text())
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        for key in ("samples_s", "cpu_samples_s", "machine_probe_cpu_s"):
            rec[key] = rec[key][:3]
    (tmp_path / "new.json").write_text(json.dumps(doc))
    done = _run(tmp_path, "nightly", "--from-results", "new.json", "--baseline-dir", "base", "--history", "h.sqlite",
                "--out-dir", "night", "--no-remeasure")
    assert done.returncode == 2, (done.stdout[-800:], done.stderr[-800:])
    first = (tmp_path / "night" / "summary.md").read_text().splitlines()[0]
    assert "no baseline" not in first and "no history" not in first, first
    assert first.startswith("## tlbench nightly: GATED NOTHING - ") and "refused" in first, first
    assert "ascend" in first and "nvidia" in first, first
