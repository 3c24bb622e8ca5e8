"""A corpus of bad input: every case runs the real ``tlbench`` command in a subprocess and must
end with its own exit code (2 unusable input, 1 a regression), exactly one line on stderr, no
traceback, and every input file byte for byte as it was (hashed before and after).

The inputs are made from a real run (tests/fixtures/compare/compile-cpu2/b1.json, b2.json) by
breaking one field at a time - each kind of malformed field a reader or judge uses.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "compare" / "compile-cpu2"
ROOT = Path(__file__).resolve().parents[1]


def _first(doc):
    return doc["benchmarks"][0]["extra_info"]["tlbench"]


def _set(path, value):
    def edit(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def _record(key, value):
    def edit(doc):
        _first(doc)[key] = value
    return edit


def _every_record(key, fn):
    def edit(doc):
        for bench in doc["benchmarks"]:
            rec = bench["extra_info"]["tlbench"]
            rec[key] = fn(rec[key])
    return edit


def _three_rounds(rec):
    """The record as a run of --tlbench-compile-rounds=3 would hold it (another measurement method)."""
    for key in ("samples_s", "cpu_samples_s", "machine_probe_cpu_s"):
        rec[key] = rec[key][:3]


# name -> (edit of the NEW file, expected exit, words expected on stderr)
BROKEN_NEW = {
    "benchmark-is-a-string": (_set(["benchmarks", 0], "oops"), 2, "benchmarks[0]"),
    "record-is-a-string": (lambda d: d["benchmarks"][0]["extra_info"].__setitem__("tlbench", "oops"), 2, "extra_info.tlbench"),
    "extra-info-is-a-list": (lambda d: d["benchmarks"][0].__setitem__("extra_info", [1]), 2, "extra_info"),
    "top-level-tlbench-is-a-string": (_set(["tlbench"], "oops"), 2, "field tlbench"),
    "failed-is-a-string": (_set(["tlbench", "failed"], "oops"), 2, "failed"),
    "machine-info-tlbench-is-a-list": (_set(["machine_info", "tlbench"], [1]), 2, "machine_info"),
    "backend-is-a-number": (_record("backend", 5), 2, "field backend"),
    "kind-unknown": (_record("kind", "warp"), 2, "field kind"),
    "case-id-empty": (_record("case_id", ""), 2, "field case_id"),
    "samples-hold-a-string": (_record("samples_s", ["1.0"]), 2, "samples"),
    "probe-all-nan": (_every_record("machine_probe_cpu_s", lambda v: [float("nan")] * len(v)), 2, "machine_probe_cpu_s"),
    "probe-all-zero": (_every_record("machine_probe_cpu_s", lambda v: [0.0] * len(v)), 2, "machine_probe_cpu_s"),
    "probe-a-string": (_record("machine_probe_cpu_s", ["x"] * 5), 2, "machine_probe_cpu_s"),
    "probe-negative": (_record("machine_probe_cpu_s", [-0.03] * 5), 2, "machine_probe_cpu_s"),
    "cpu-samples-negative": (_record("cpu_samples_s", [-1.0] * 5), 2, "cpu_samples_s"),
    "round-robin-a-string": (_record("compile_round_robin", "many"), 2, "compile_round_robin"),
    "summary-a-list": (_record("summary", [1]), 2, "summary"),
    "summary-median-a-string": (lambda d: _first(d)["summary"].__setitem__("median", "fast"), 2, "summary.median"),
    "plan-a-string": (_record("plan", "plan"), 2, "plan"),
    "measurement-rounds-zero": (_record("measurement", {"round_medians_s": [0.0, 1.0]}), 2, "round_medians_s"),
    "measurement-drift-a-number": (_record("measurement", {"drift": 0.5}), 2, "drift"),
    "config-a-list": (_record("config", [1, 2]), 2, "config"),
    "roofline-a-string": (_record("roofline", "n/a"), 2, "field roofline"),
    "throughput-a-string": (_record("throughput", {"tflops": "lots"}), 2, "throughput.tflops"),
    "schema-version-2": (_record("schema_version", 2), 2, "schema_version"),
    "one-of-28-items": (lambda d: d.__setitem__("benchmarks", d["benchmarks"][:1]), 1, None),
    "samples-all-zero": (_every_record("samples_s", lambda v: [0.0] * len(v)), 0, None),
    "a-whole-backend-missing": (lambda d: d.__setitem__("benchmarks", [b for b in d["benchmarks"]
                                                                      if b["extra_info"]["tlbench"]["backend"] == "nvidia"]), 1, None),
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "tlbench.harness.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _assert_clean_exit(done: subprocess.CompletedProcess, code: int, words: str | None, inputs: dict[Path, str]) -> None:
    assert done.returncode == code, (done.returncode, done.stdout[-800:], done.stderr[-800:])
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    if code == 2:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tlbench"), done.stderr
        if words:
            assert words in lines[0], lines[0]
    for path, digest in inputs.items():
        assert _sha(path) == digest, f"{path} changed"


def test_compile_items_of_other_rounds_are_refused_like_another_timer(tmp_path):
    """A run of --tlbench-compile-rounds=3 against one of 5: another measurement method, refused
    (exit 2, naming the option) unless --allow-method-mismatch, which labels every report."""
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_bytes((FIXTURES / "b1.json").read_bytes())
    doc = json.loads((FIXTURES / "b2.json").read_text())
    for bench in doc["benchmarks"]:
        _three_rounds(bench["extra_info"]["tlbench"])
    new.write_text(json.dumps(doc))
    inputs = {base: _sha(base), new: _sha(new)}
    _assert_clean_exit(_run(tmp_path, "compare", "base.json", "new.json"), 2, "compile rounds 5 -> 3", inputs)
    allowed = _run(tmp_path, "compare", "base.json", "new.json", "--allow-method-mismatch")
    assert allowed.returncode in (0, 1) and "METHOD MISMATCH nvidia in 14 compile items" in " ".join(allowed.stdout.split())


@pytest.mark.parametrize("case", sorted(BROKEN_NEW))
def test_a_malformed_new_file_is_one_line_and_never_a_traceback(tmp_path, case):
    edit, code, words = BROKEN_NEW[case]
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_bytes((FIXTURES / "b1.json").read_bytes())
    doc = json.loads((FIXTURES / "b2.json").read_text())
    edit(doc)
    new.write_text(json.dumps(doc))
    inputs = {base: _sha(base), new: _sha(new)}
    _assert_clean_exit(_run(tmp_path, "compare", "base.json", "new.json"), code, words, inputs)
    if code == 2:
        _assert_clean_exit(_run(tmp_path, "report", "new.json"), 2, words, inputs)


def _files(tmp_path: Path) -> dict[str, Path]:
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_bytes((FIXTURES / "b1.json").read_bytes())
    new.write_bytes((FIXTURES / "b2.json").read_bytes())
    (tmp_path / "empty.db").write_bytes(b"")
    conn = sqlite3.connect(tmp_path / "other.db")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    (tmp_path / "notadb.db").write_text("not a database\n")
    (tmp_path / "torn.json").write_text((FIXTURES / "b2.json").read_text()[:5000])
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "bad.json.gz").write_bytes(gzip.compress(b"{not json"))
    journal = tmp_path / "run.journal.jsonl"
    journal.write_text(json.dumps({"type": "run", "journal_version": 1}) + "\n")
    (tmp_path / "big.json").write_bytes(b" " * 2048)
    return {p.name: p for p in tmp_path.iterdir()}


# name -> (argv, expected exit, words on stderr)
COMMANDS = {
    "report-markdown-over-its-input": (["report", "new.json", "--markdown", "new.json"], 2, "input"),
    "compare-markdown-over-base": (["compare", "base.json", "new.json", "--markdown", "base.json"], 2, "input"),
    "compare-png-over-new": (["compare", "base.json", "new.json", "--png", "new.json"], 2, "input"),
    "report-markdown-over-another-results-file": (["report", "new.json", "--markdown", "base.json"], 2, "results"),
    "recover-over-its-journal": (["recover", "run.journal.jsonl", "-o", "run.journal.jsonl"], 2, "input"),
    "recover-over-a-complete-file": (["recover", "run.journal.jsonl", "-o", "base.json"], 2, "results"),
    "history-show-on-an-empty-file": (["history", "show", "--history", "empty.db"], 2, "empty file"),
    "history-show-on-another-programs-sqlite": (["history", "show", "--history", "other.db"], 2, "not a tlbench history"),
    "dashboard-on-another-programs-sqlite": (["dashboard", "--history", "other.db", "--out-dir", "site"], 2, "not a tlbench history"),
    "compare-history-on-an-empty-file": (["compare", "new.json", "--history", "empty.db"], 2, "empty file"),
    "history-add-to-a-non-database": (["history", "add", "new.json", "--history", "notadb.db"], 2, "notadb.db"),
    "history-add-to-another-programs-sqlite": (["history", "add", "new.json", "--history", "other.db"], 2, "another program"),
    "compare-history-png-over-its-input": (["compare", "new.json", "--history", "other.db", "--png", "new.json"], 2, "input"),
    "nightly-unbalanced-quote": (["nightly", "base.json", "--pytest-args", '"x'], 2, "No closing quotation"),
    "torn-json": (["report", "torn.json"], 2, "not valid JSON"),
    "empty-json": (["report", "empty.json"], 2, "empty file"),
    "a-json-list": (["report", "list.json"], 2, "not pytest-benchmark output"),
    "gzip-of-garbage": (["report", "bad.json.gz"], 2, "not valid JSON"),
    "no-such-file": (["compare", "base.json", "nope.json"], 2, "no such file"),
    "a-directory": (["report", "."], 2, "directory"),
    "three-files": (["compare", "base.json", "new.json", "new.json"], 2, "BASE.json NEW.json"),
}


@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_a_bad_command_is_one_line_and_destroys_nothing(tmp_path, case):
    argv, code, words = COMMANDS[case]
    files = _files(tmp_path)
    inputs = {p: _sha(p) for p in files.values() if p.is_file()}
    _assert_clean_exit(_run(tmp_path, *argv), code, words, inputs)
    assert not (tmp_path / "empty.db-wal").exists() and not (tmp_path / "other.db-wal").exists()


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    files = _files(tmp_path)
    env_limit = {"TLBENCH_MAX_RESULTS_BYTES": "1024"}
    done = subprocess.run([sys.executable, "-m", "tlbench.harness.cli", "report", "big.json"], cwd=tmp_path,
                          env={**os.environ, **env_limit, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "too large" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert files["big.json"].stat().st_size == 2048


def test_an_internal_error_exits_3_naming_the_traceback_file(tmp_path, monkeypatch, capsys):
    """A bug of tlbench (here: compare itself raising) is exit 3, never 1 (regression) or 2."""
    from tlbench.harness import cli
    from tlbench.harness.results.compare import compare

    files = _files(tmp_path)

    def broken(*args, **kwargs):
        raise ZeroDivisionError("deliberately broken compare (test)")

    monkeypatch.setattr(compare, "compare_runs", broken)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = cli.main(["compare", str(files["base.json"]), str(files["new.json"])])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3 and len(err) == 1 and "internal error" in err[0] and "a bug in tlbench" in err[0]
    written = sorted(tmp_path.glob("tlbench-crash-*.txt"))
    assert len(written) == 1 and str(written[0]) in err[0]
    assert "ZeroDivisionError: deliberately broken compare (test)" in written[0].read_text()
