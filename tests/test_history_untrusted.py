"""Stored data is untrusted input: ``compare --history`` survives any stored row (it leaves the row
out and says so), runs whose samples are all 0 are judged NOISY (nothing was measured), and the
history is written only into a tlbench database.

Real runs (tests/fixtures/compare/compile-cpu2, h200-aa2) through the real ``tlbench`` command;
rows are broken with SQL after ``history add`` stored them, one kind of damage each."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

from json_schema_subset import errors
from test_bad_inputs import _run
from tlbench.harness.results.report.json_output import compare_output_schema

COMPARE = Path(__file__).resolve().parent / "fixtures" / "compare"
CPU2 = COMPARE / "compile-cpu2"


def _zeroed(source: Path, target: Path) -> Path:
    doc = json.loads(source.read_text())
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        rec["samples_s"] = [0.0] * len(rec["samples_s"])
        rec["summary"]["median"] = 0.0
        rec.pop("measurement", None)
        if rec.get("cpu_samples_s"):
            rec["cpu_samples_s"] = [0.0] * len(rec["cpu_samples_s"])
    doc["datetime"] = "2020-01-01T00:00:00"
    target.write_text(json.dumps(doc))
    return target


def _zero_stored_run(db: Path, run_id: int) -> None:
    """Make a stored run all-zero, as a tlbench that stored such runs left it (``history add`` now
    refuses them: tests/test_gate_battery.py), so a database written then is read as it is."""
    conn = sqlite3.connect(db)
    for rowid, record_json in conn.execute("SELECT rowid, record_json FROM items WHERE run_id = ?", (run_id,)).fetchall():
        rec = json.loads(record_json)
        rec["samples_s"] = [0.0] * len(rec["samples_s"])
        conn.execute("UPDATE items SET record_json = ?, samples_json = ?, median_s = 0.0 WHERE rowid = ?",
                     (json.dumps(rec), json.dumps(rec["samples_s"]), rowid))
    conn.commit()
    conn.close()


def _break_rows(db: Path) -> int:
    """Damage five stored rows of run 1, one way each; returns how many."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT rowid, record_json FROM items WHERE run_id = 1 ORDER BY rowid").fetchall()
    conn.execute("UPDATE items SET record_json = '{not json' WHERE rowid = ?", (rows[0][0],))
    conn.execute("UPDATE items SET samples_json = '[1,' WHERE rowid = ?", (rows[1][0],))
    rec = json.loads(rows[2][1])
    rec["samples_s"] = ["fast"]
    conn.execute("UPDATE items SET record_json = ? WHERE rowid = ?", (json.dumps(rec), rows[2][0]))
    rec = json.loads(rows[3][1])
    rec["case_id"] = "gemm-someone-elses"
    conn.execute("UPDATE items SET record_json = ? WHERE rowid = ?", (json.dumps(rec), rows[3][0]))
    conn.execute("UPDATE items SET median_s = NULL WHERE rowid = ?", (rows[4][0],))
    conn.commit()
    conn.close()
    return 5


def test_compare_history_leaves_out_every_unusable_row_and_says_so(tmp_path):
    shutil.copy(CPU2 / "b1.json", tmp_path / "b1.json")
    shutil.copy(CPU2 / "b2.json", tmp_path / "b2.json")
    doc = json.loads((CPU2 / "b1.json").read_text())
    doc["datetime"] = "2020-01-01T00:00:00"
    (tmp_path / "earlier.json").write_text(json.dumps(doc))
    assert _run(tmp_path, "history", "add", "b1.json", "earlier.json", "--history", "h.db").returncode == 0
    _zero_stored_run(tmp_path / "h.db", 2)
    broken = _break_rows(tmp_path / "h.db")
    done = _run(tmp_path, "compare", "b2.json", "--history", "h.db")
    assert done.returncode == 0, done.stderr[-800:]  # the damaged rows' items are NEW: nothing gates, nothing crashes
    lines = [ln for ln in done.stdout.splitlines() if ln.strip().startswith("run ") and ln.endswith("left out")]
    assert len(lines) == broken + 28  # five damaged rows, and the 28 rows of the run whose samples are all 0
    for words in ("record is not valid JSON", "samples are not valid JSON", "samples_s", "another item's", "median is None",
                  "median is 0.0"):
        assert any(words in ln for ln in lines), words
    as_json = _run(tmp_path, "compare", "b2.json", "--history", "h.db", "--json")
    document = json.loads(as_json.stdout)
    assert as_json.returncode == 0 and errors(document, compare_output_schema()) == []
    assert len(document["skipped_rows"]) == broken + 28 and document["base"]["path"] == "h.db"
    assert document["counts"]["NEW"] == broken and document["counts"]["SAME"] + document["counts"]["NOISY"] == 28 - broken


def test_runs_whose_samples_are_all_zero_are_noisy_never_a_crash(tmp_path):
    pairs = [(CPU2 / "b2.json", _zeroed(CPU2 / "b1.json", tmp_path / "zero-compile.json")),
             (COMPARE / "h200-aa2" / "aa4.json", _zeroed(COMPARE / "h200-aa2" / "aa3.json", tmp_path / "zero-device.json"))]
    for real, zero in pairs:
        for base, new in ((real, zero), (zero, real), (zero, zero)):
            done = _run(tmp_path, "compare", str(base), str(new), "--json")
            assert done.returncode == 0, done.stderr[-600:]
            items = json.loads(done.stdout)["items"]
            assert items and all(i["verdict"] == "NOISY" and "nothing was measured" in i["reason"] for i in items)
    report = _run(tmp_path, "report", str(pairs[1][1]))
    assert report.returncode == 0, report.stderr[-600:]


def test_history_add_never_writes_into_another_programs_database(tmp_path):
    shutil.copy(CPU2 / "b1.json", tmp_path / "b1.json")
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (x)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    done = _run(tmp_path, "history", "add", "b1.json", "--history", "other.sqlite")
    assert done.returncode == 2 and "another program" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    night = _run(tmp_path, "nightly", "--from-results", "b1.json", "--history", "other.sqlite", "--out-dir", "night",
                 "--baseline-dir", "baselines", "--no-remeasure")
    assert night.returncode == 2 and "another program" in night.stderr, night.stderr[-600:]
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    assert not (tmp_path / "other.sqlite-wal").exists() and not (tmp_path / "night" / "nvidia-cpu.json").exists()
    assert sqlite3.connect(other).execute("PRAGMA journal_mode").fetchone()[0] == "delete"
