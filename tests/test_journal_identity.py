"""A journal line stands only for the item it names, and bad journal data is bad input.

On a real journal of a run of the named FakeBackend (tests/fake_backend.py, eight device items),
edited one way at a time: a line whose record is another item's or another backend's is never
reused by ``--tlbench-resume`` (that item is measured again) and makes ``tlbench recover``
refuse the journal; NaN or string samples are one line, exit 2 for recover and pytest's usage
error for resume, never a traceback; two runs written into one journal with disagreeing copies
of an item are refused; a file that is no journal is refused at its first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_journal import CONFTEST, SUITE, _pytest
from tlbench.harness.cli import main as tlbench_main
from tlbench.harness.results.files.store import load_results


@pytest.fixture
def journal_run(tmp_path):
    """One real run and its journal (the gate exists: nothing blocks), in the test's folder: a
    journal names the suite file it measured, so a resume runs where the run ran."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_journal_suite.py").write_text(SUITE)
    run = _pytest(tmp_path, env={"TLBENCH_FAKE_GATE": str(tmp_path)})
    output = run.communicate()[0]
    assert run.returncode == 0, output
    return tmp_path


def _edit(path: Path, edit) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    items = [e for e in lines if e["type"] == "item"]
    edit(items)
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))


def _one_line(capsys, words: str) -> None:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tlbench: ") and words in err[0], err


def _nan_samples(items):
    items[2]["benchmark"]["stats"]["data"][0] = float("nan")


def _string_samples(items):
    items[2]["outcome"]["samples_s"][1] = "0.001"


def _swap_records(items):
    items[0]["outcome"], items[1]["outcome"] = items[1]["outcome"], items[0]["outcome"]


def _other_backend(items):
    items[3]["outcome"]["backend"] = "ascend"


@pytest.mark.parametrize("edit, words", [(_nan_samples, "nan, not a non-negative finite number"),
                                         (_string_samples, "'0.001', not a number")])
def test_bad_samples_in_a_journal_are_one_line_for_recover_and_resume(journal_run, tmp_path, capsys, edit, words):
    journal = journal_run / "out.journal.jsonl"
    _edit(journal, edit)
    before = journal.read_bytes()
    assert tlbench_main(["recover", str(journal), "-o", str(tmp_path / "r.json")]) == 2
    _one_line(capsys, words)
    resumed = _pytest(tmp_path, f"--tlbench-resume={journal}", "--benchmark-json=again.json",
                      env={"TLBENCH_FAKE_GATE": str(tmp_path)})
    output = resumed.communicate()[0]
    assert resumed.returncode == 4 and "Traceback" not in output, output  # pytest's usage error
    assert f"--tlbench-resume: {journal}: line" in output and words in output
    assert journal.read_bytes() == before and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("edit, remeasured, words", [(_swap_records, 2, "its record is of"),
                                                     (_other_backend, 1, "its record is of")])
def test_a_line_that_is_another_items_is_measured_again_and_refused_by_recover(journal_run, tmp_path, capsys, edit,
                                                                               remeasured, words):
    journal = journal_run / "out.journal.jsonl"
    _edit(journal, edit)
    resumed = _pytest(tmp_path, f"--tlbench-resume={journal}", "--benchmark-json=again.json", "--tlbench-journal=new.jsonl",
                      env={"TLBENCH_FAKE_GATE": str(tmp_path)})
    output = resumed.communicate()[0]
    assert resumed.returncode == 0, output
    assert f"{8 - remeasured} items reused, {remeasured} re-measured" in output
    again = load_results(tmp_path / "again.json")
    assert len(again.records) == 8 and len({r["case_id"] for r in again.records}) == 8
    assert all(r["backend"] == "fake" for r in again.records)
    assert all(words in why for why in again.document["tlbench"]["remeasured"].values())
    assert tlbench_main(["recover", str(journal), "-o", str(tmp_path / "r.json")]) == 2
    _one_line(capsys, words)


def test_two_runs_in_one_journal_with_disagreeing_copies_are_refused(journal_run, tmp_path, capsys):
    journal = journal_run / "out.journal.jsonl"
    again = _pytest(tmp_path, "--benchmark-json=second.json", "--tlbench-journal=second.journal.jsonl",
                    env={"TLBENCH_FAKE_GATE": str(tmp_path)})
    assert again.wait() == 0
    second = (tmp_path / "second.journal.jsonl").read_text()
    _edit(tmp_path / "second.journal.jsonl", lambda items: [i["benchmark"]["stats"]["data"].__setitem__(0, 0.5) for i in items])
    with journal.open("a") as fh:
        fh.write((tmp_path / "second.journal.jsonl").read_text())
    assert tlbench_main(["recover", str(journal), "-o", str(tmp_path / "r.json")]) == 2
    _one_line(capsys, "two different measurements of")
    identical = tmp_path / "identical.journal.jsonl"
    identical.write_text(second + second)  # the same copy twice: nothing disagrees
    assert tlbench_main(["recover", str(identical), "-o", str(tmp_path / "same.json")]) == 0


def test_a_large_file_that_is_no_journal_is_refused_at_its_first_line(tmp_path, capsys):
    junk = tmp_path / "junk.journal.jsonl"
    with junk.open("wb") as fh:
        for _ in range(6):
            fh.write(b"x" * 2**20)  # 6 MiB and no newline: longer than any run header
    assert tlbench_main(["recover", str(junk)]) == 2
    _one_line(capsys, "line 1 is longer than 4 MiB")
