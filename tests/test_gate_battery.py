"""The gate's bad-input and injection battery (issue 54): each defect it found, on real files.

Every case runs the real ``tlbench`` command in a subprocess on a committed run
(tests/fixtures/compare/cpu-counts: a real CPU night counted under callgrind; the
compile-cpu2 pair) with one field changed, and asserts the exit status and the words.
"""

from __future__ import annotations

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
