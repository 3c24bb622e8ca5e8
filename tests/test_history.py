"""The SQLite history store: idempotent adds, forward migration, concurrent writers, the
trend table, and judging a run against the rolling best / median of its history."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tlbench.harness.cli import main
from tlbench.harness.results.history import ingest, query
from tlbench.harness.results.history.schema import SCHEMA_VERSION, HistoryError, open_history, schema_version
from history_fixtures import COMPARE, RESULTS, unpack_runs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return unpack_runs(tmp_path_factory.mktemp("runs"))


def _counts(db: Path) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        return tuple(conn.execute(q).fetchone()[0] for q in ("SELECT COUNT(*) FROM runs", "SELECT COUNT(*) FROM items"))
    finally:
        conn.close()


def test_add_is_idempotent_by_content_and_names_each_file(tmp_path, runs, capsys):
    db = tmp_path / "h.sqlite"
    assert main(["history", "add", *map(str, runs[:3]), "--history", str(db)]) == 0
    assert _counts(db) == (3, 21)
    copy = tmp_path / "renamed.json"
    copy.write_bytes(runs[0].read_bytes())
    assert main(["history", "add", str(runs[1]), str(copy), "--history", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"skipped {copy}: already in history as run 1" in out
    assert _counts(db) == (3, 21)


def test_add_keeps_the_usable_files_and_exits_2_for_a_bad_one(tmp_path, runs, capsys):
    db = tmp_path / "h.sqlite"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["history", "add", str(bad), str(runs[0]), "--history", str(db)]) == 2
    out = capsys.readouterr().out
    assert f"not added {bad}" in out and "not valid JSON" in out
    assert _counts(db) == (1, 7)


def test_import_dir_backfills_committed_results_and_reports_what_it_left_out(tmp_path, capsys):
    db = tmp_path / "h.sqlite"
    assert main(["history", "import-dir", str(RESULTS), "--history", str(db)]) == 0
    out = capsys.readouterr().out
    assert "not added" in out and "best_configs.json" in out  # not a run: reported, not fatal
    # the baseline is the stage run under another name: one run, not two
    assert "already in history" in out
    conn = open_history(db)
    beds = query.testbeds(conn, "h200")
    assert beds and all(b.accelerator == "NVIDIA H200" for b in beds)
    device = [s for s in query.series(conn, "gemm-8192*-s3", kind="device")]
    assert device and all(p.pct_of_peak is not None and 0 < p.pct_of_peak < 100 for s in device for p in s.timed)


def test_records_keep_commit_samples_and_status(tmp_path, runs):
    db = tmp_path / "h.sqlite"
    conn = open_history(db)
    (outcome,) = ingest.add_files(conn, [runs[0]])
    assert outcome.status == "added"
    doc = json.loads(runs[0].read_text())
    row = conn.execute("SELECT commit_id, commit_dirty, started_at FROM runs").fetchone()
    assert tuple(row) == (doc["commit_info"]["id"], int(doc["commit_info"]["dirty"]), doc["datetime"])
    (s, *_) = query.series(conn, "*-auto-s2")
    bench = next(b for b in doc["benchmarks"] if b["extra_info"]["tlbench"]["case_id"] == s.case_id)
    assert list(s.points[0].samples_s) == bench["extra_info"]["tlbench"]["samples_s"]


def test_schema_migrates_forward_and_keeps_data(tmp_path, runs):
    db = tmp_path / "old.sqlite"
    old = open_history(db, target=1)
    assert schema_version(old) == 1
    old.execute("INSERT INTO runs (run_hash, source, added_at) VALUES ('abc', 'x.json', '2026-01-01')")
    old.close()
    conn = open_history(db)
    assert schema_version(conn) == SCHEMA_VERSION
    assert conn.execute("SELECT source FROM runs").fetchone()[0] == "x.json"
    columns = {r[1] for r in conn.execute("PRAGMA table_info(items)")}
    assert {"pct_of_peak", "arithmetic_intensity", "kernel_hash"} <= columns
    ingest.add_files(conn, [runs[0]])
    assert _counts(db) == (2, 7)


def test_a_database_from_a_newer_tlbench_is_refused_untouched(tmp_path):
    db = tmp_path / "new.sqlite"
    raw = sqlite3.connect(db)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(HistoryError, match="newer tlbench"):
        open_history(db)
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    raw.close()


def test_not_a_database_is_one_clear_line(tmp_path, capsys):
    db = tmp_path / "junk.sqlite"
    db.write_text("this is not sqlite " * 100)
    assert main(["history", "show", "--history", str(db)]) == 2
    assert "not a usable SQLite history database" in capsys.readouterr().err


def test_two_concurrent_writers_lose_nothing(tmp_path, runs):
    """Two `tlbench history add` processes on one file at once, overlapping on half their
    files (each file is one write transaction): every distinct run is stored exactly once."""
    db = tmp_path / "shared.sqlite"
    first, second = runs[:14], runs[6:]  # 6..13 in both, in opposite orders
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-m", "tlbench.harness.cli", "history", "add", "--history", str(db)]
    procs = [subprocess.Popen(cmd + [str(p) for p in files], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for files in (first, second[::-1])]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert _counts(db) == (20, 140)
    added = sum(out.count("\nadded ") + out.startswith("added ") for out, _ in outputs)
    assert added == 20  # each overlapping file was added by exactly one of the two
    conn = open_history(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT COUNT(DISTINCT run_hash) FROM runs").fetchone()[0] == 20


def test_history_show_prints_the_trend_with_runs_as_columns(tmp_path, runs, capsys):
    db = tmp_path / "h.sqlite"
    main(["history", "add", *map(str, runs), "--history", str(db)])
    capsys.readouterr()
    assert main(["history", "show", "*-s3", "--last", "4", "--history", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[0].split()
    assert header[:5] == ["config", "-3", "-2", "-1", "last"]  # the case's own last 4 runs
    heading = next(i for i, line in enumerate(out) if line.startswith("testbed 1 | compile | gemm-1024x1024x1024-f16 [stages]"))
    body = [line for line in out[heading + 1:] if line.startswith("  bm128-bn128-bk32-t128-auto-s3 ")]
    assert len(body) == 1 and " 20 " in body[0]  # runs
    assert any(line.startswith("testbed 1: ascend") for line in out)


def test_history_show_unknown_testbed_lists_the_stored_ones(tmp_path, runs, capsys):
    db = tmp_path / "h.sqlite"
    main(["history", "add", str(runs[0]), "--history", str(db)])
    assert main(["history", "show", "--testbed", "mi300", "--history", str(db)]) == 2
    assert "stored: [1] ascend" in capsys.readouterr().err


def _sleepy(name: str) -> str:
    return str(COMPARE / name)


def test_compare_history_same_run_again_is_all_same(tmp_path, capsys):
    db = tmp_path / "h.sqlite"
    main(["history", "add", _sleepy("sleepy-base.json"), "--history", str(db)])
    assert main(["compare", "--history", str(db), _sleepy("sleepy-aa.json")]) == 0
    out = capsys.readouterr().out
    assert "SLOWER" not in out.replace("0 SLOWER", "")
    assert "best of 1 runs: run 1" in out


def test_compare_history_excludes_the_new_run_itself(tmp_path, capsys):
    db = tmp_path / "h.sqlite"
    main(["history", "add", _sleepy("sleepy-base.json"), _sleepy("sleepy-slow10.json"), "--history", str(db)])
    capsys.readouterr()
    assert main(["compare", "--history", str(db), _sleepy("sleepy-slow10.json")]) == 1
    out = capsys.readouterr().out
    assert "best of 1 runs: run 1" in out  # not itself (run 2)


@pytest.mark.parametrize("statistic", ["best", "median"])
def test_compare_history_names_the_slower_items(tmp_path, capsys, statistic):
    db = tmp_path / "h.sqlite"
    main(["history", "add", _sleepy("sleepy-base.json"), _sleepy("sleepy-aa.json"), "--history", str(db)])
    capsys.readouterr()
    code = main(["compare", "--history", str(db), "--statistic", statistic, "--last", "5", _sleepy("sleepy-slow10.json")])
    out = capsys.readouterr().out
    assert code == 1
    slower = [line for line in out.splitlines() if line.startswith("  SLOWER ")]  # rows of the table, under their problem
    assert slower and any(line.startswith("SLOWER | device sleepy | ") for line in out.splitlines()), out
    assert f"{statistic} of 2 runs" in out


def test_compare_history_on_an_unknown_testbed_says_which_are_stored(tmp_path, runs, capsys):
    db = tmp_path / "h.sqlite"
    main(["history", "add", str(runs[0]), "--history", str(db)])
    capsys.readouterr()
    assert main(["compare", "--history", str(db), _sleepy("sleepy-aa.json")]) == 2
    err = capsys.readouterr().err
    assert "no history for sleepy-aa.json's sleepy testbed" in err and "[1] ascend" in err


def test_compare_history_without_a_database_says_how_to_make_one(tmp_path, capsys):
    assert main(["compare", "--history", str(tmp_path / "none.sqlite"), _sleepy("sleepy-aa.json")]) == 2
    assert "tlbench history add" in capsys.readouterr().err


def test_calibrate_without_a_device_says_why(capsys):
    pytest.importorskip("tilelang")
    code = main(["calibrate", "--backend", "nvidia"])
    if code == 2:
        assert "no device here" in capsys.readouterr().err
    else:  # a machine with a GPU measured its profile
        assert code == 0 and "calibrated" in capsys.readouterr().out


class LockedThenFreeConnection:
    """TEST-ONLY fake of a sqlite3 connection, for the retry logic of ``switch_to_wal`` alone:
    the WAL pragma answers "database is locked" ``locked`` times, then "wal"."""

    def __init__(self, locked: int, words: str = "database is locked") -> None:
        self.locked, self.words, self.asked = locked, words, 0

    def execute(self, sql):
        assert sql == "PRAGMA journal_mode = WAL"
        self.asked += 1
        if self.asked <= self.locked:
            raise sqlite3.OperationalError(self.words)
        return self

    def fetchone(self):
        return ("wal",)


def test_switching_to_wal_asks_again_while_sqlite_says_locked_at_once():
    from tlbench.harness.results.history.schema import switch_to_wal

    now = [0.0]
    conn = LockedThenFreeConnection(locked=3)
    assert switch_to_wal(conn, sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0]) == "wal"
    assert conn.asked == 4
    with pytest.raises(sqlite3.OperationalError, match="locked"):  # past the busy timeout: SQLite's words
        switch_to_wal(LockedThenFreeConnection(locked=10**6), wait_s=1.0,
                      sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):  # any other error at once
        switch_to_wal(LockedThenFreeConnection(locked=1, words="disk I/O error"))
