"""Inputs are never written over: every command that writes a file refuses, before it writes
anything, an output that is one of its inputs, that lies in the baseline directory, or that is
an existing complete results file or journal (harness/commands/outputs.py::guard) - exit 2, one
line, every file below the test folder byte for byte as it was.  ``--force`` writes anyway.

Runs the real ``tlbench`` command on copies of a real run (tests/fixtures/compare/compile-cpu2).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from test_bad_inputs import FIXTURES, _run


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(root: Path) -> dict[Path, str]:
    return {p: _sha(p) for p in sorted(root.rglob("*")) if p.is_file()}


def _setup(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "b1.json", tmp_path / "base.json")
    shutil.copy(FIXTURES / "b2.json", tmp_path / "new.json")
    (tmp_path / "baselines").mkdir()
    shutil.copy(FIXTURES / "b1.json", tmp_path / "baselines" / "nvidia-cpu.json")
    (tmp_path / "night").mkdir()
    shutil.copy(FIXTURES / "b2.json", tmp_path / "night" / "nvidia-cpu.json")  # a two-backend merged run, named as a split would be
    (tmp_path / "run.journal.jsonl").write_text(json.dumps({"type": "run", "journal_version": 1}) + "\n")
    (tmp_path / "exports").mkdir()
    shutil.copy(FIXTURES / "b2.json", tmp_path / "exports" / "time-smaller-is-better.json")
    (tmp_path / "old-exports").mkdir()
    shutil.copy(FIXTURES / "b1.json", tmp_path / "old-exports" / "tflops-bigger-is-better.json")


NIGHTLY = ["nightly", "--no-remeasure", "--pytest-args", "-p no:randomly"]

# name -> (argv, words on the one stderr line)
OVERWRITES = {
    "nightly-out-dir-is-the-baseline-dir": ([*NIGHTLY, "--from-results", "new.json", "--baseline-dir", "baselines",
                                              "--out-dir", "baselines"], "baseline directory"),
    "nightly-out-dir-inside-the-baseline-dir": ([*NIGHTLY, "--from-results", "new.json", "--baseline-dir", "baselines",
                                                  "--out-dir", "baselines/tonight"], "baseline directory"),
    "nightly-from-results-inside-out-dir": ([*NIGHTLY, "--from-results", "night/nvidia-cpu.json", "--baseline-dir",
                                             "baselines", "--out-dir", "night"], "is also an input"),
    "merge-over-an-input-shard": (["merge", "base.json", "new.json", "-o", "new.json"], "is also an input"),
    "merge-over-a-complete-results-file": (["merge", "new.json", "-o", "base.json"], "tlbench results file"),
    "merge-over-a-journal": (["merge", "new.json", "-o", "run.journal.jsonl"], "journal"),
    "export-over-its-own-input": (["export", "exports/time-smaller-is-better.json", "--format", "github-action-benchmark",
                                   "--out-dir", "exports"], "is also an input"),
    "export-over-a-results-file": (["export", "new.json", "--format", "github-action-benchmark", "--out-dir", "old-exports"],
                                   "tlbench results file"),
    "recover-over-its-journal": (["recover", "run.journal.jsonl", "-o", "run.journal.jsonl"], "is also an input"),
    "recover-over-a-complete-results-file": (["recover", "run.journal.jsonl", "-o", "base.json"], "tlbench results file"),
    "baseline-update-over-its-own-input": (["baseline", "update", "night/nvidia-cpu.json", "--out-dir", "night"], "is also an input"),
    "compare-history-markdown-over-its-input": (["compare", "new.json", "--history", "h.db", "--markdown", "new.json"],
                                                "is also an input"),
    "report-markdown-over-a-journal": (["report", "new.json", "--markdown", "run.journal.jsonl"], "journal"),
    "compare-png-over-a-results-file": (["compare", "base.json", "new.json", "--png", "night/nvidia-cpu.json"],
                                        "tlbench results file"),
}


@pytest.mark.parametrize("case", sorted(OVERWRITES))
def test_an_output_over_an_input_is_refused_and_nothing_changes(tmp_path, case):
    argv, words = OVERWRITES[case]
    _setup(tmp_path)
    if "--history" in argv:
        assert _run(tmp_path, "history", "add", "base.json", "--history", "h.db").returncode == 0
    before = _tree(tmp_path)
    done = _run(tmp_path, *argv)
    assert done.returncode == 2, (done.returncode, done.stdout[-600:], done.stderr[-600:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tlbench") and words in lines[0], done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert _tree(tmp_path) == before  # every input byte for byte, and nothing new written


def test_force_writes_the_merged_run_over_the_input_on_request(tmp_path):
    _setup(tmp_path)
    done = _run(tmp_path, "export", "exports/time-smaller-is-better.json", "--format", "github-action-benchmark",
                "--out-dir", "exports", "--force")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "exports" / "time-smaller-is-better.json").read_text())[0]["name"]


def test_a_night_replaces_its_own_earlier_files(tmp_path):
    """The out-dir is the night's own workspace: last night's split files are replaced, not refused."""
    _setup(tmp_path)
    argv = [*NIGHTLY, "--from-results", "new.json", "--baseline-dir", "baselines", "--out-dir", "night"]
    done = _run(tmp_path, *argv)
    assert done.returncode in (0, 1), done.stderr[-800:]
    again = _run(tmp_path, *argv)
    assert again.returncode == done.returncode, again.stderr[-800:]
    assert (tmp_path / "night" / "ascend-cpu.json").exists() and (tmp_path / "night" / "summary.md").exists()


def test_a_large_partial_file_is_told_from_a_complete_one_wherever_its_note_starts(tmp_path):
    """An earlier partial merge or recovery may be replaced; a complete run may not.  A note that
    lists thousands of missing items starts far before the file's last bytes: still partial."""
    from tlbench.harness.commands.outputs import OutputRefused, guard, looks_like

    doc = json.loads((FIXTURES / "b1.json").read_text())
    doc["tlbench"]["partial"] = {"reasons": ["shard 2/3 of 3 not merged"],
                                 "missing": [f"suites/test_x.py::test_item[{'x' * 150}-{i}]" for i in range(3000)]}
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(doc, indent=1))
    doc["tlbench"]["partial"] = None
    complete = tmp_path / "complete.json"
    complete.write_text(json.dumps(doc, indent=1) + " " * (1 << 19))
    assert partial.stat().st_size > 1 << 19
    assert looks_like(partial) == "partial results" and looks_like(complete) == "results"
    guard([partial], [], False)  # replaced without --force
    with pytest.raises(OutputRefused, match="tlbench results file"):
        guard([complete], [], False)
