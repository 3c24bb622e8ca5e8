"""The run journal, recover, resume and the atomic JSON write, with the named
FakeBackend (tests/fake_backend.py) and real pytest processes, one of them killed with SIGKILL.

What is pinned: each finished item is on disk as a journal line while the run goes on; a
run killed mid-way leaves a journal that ``tlbench recover`` turns into a partial results
file which ``tlbench compare`` and ``pytest-benchmark compare`` read; ``--tlbench-resume``
measures only the items the journal lacks (or whose code/testbed/settings changed); the
final JSON replaces the old file whole.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fake_backend
from tlbench.harness.cli import main as tlbench_main
from tlbench.harness.results.files.journal import Journal, JournalError, atomic_write_text, journal_path_for, read_journal
from tlbench.harness.results.files.store import load_results

CONFTEST = fake_backend.CONFTEST

# Eight device items in collection order; block_N=88 waits on $TLBENCH_FAKE_GATE (test-only).
SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="journal_suite",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (128, 64, 32, 16, 88, 256, 48, 96)],
    vendor=False,
)

def test_fake(tlbench):
    tlbench.run()
"""

GATED = "device-fake-tile-1024x1024x1024-f16-bm128-bn88-bk32-t128-auto-s2"


def _item_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if json.loads(line)["type"] == "item"]


def _pytest(cwd: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-kind=device",
         "--tlbench-seed=7", "--tlbench-no-interleave", "--benchmark-json=out.json", *args],
        cwd=cwd, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _wait_for_items(journal: Path, count: int, proc: subprocess.Popen) -> None:
    for _ in range(6000):  # a bound on polling only; the run blocks on the gate, not on time
        if journal.exists() and len(_item_lines(journal)) >= count:
            return
        if proc.poll() is not None:
            raise AssertionError(f"pytest ended early:\n{proc.stdout.read()}")
        time.sleep(0.05)
    raise AssertionError("the journal never reached the items before the gate")


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_journal_suite=SUITE)
    return pytester.path


def test_killed_run_is_recovered_and_resumed_measuring_only_the_missing_items(suite, capsys):
    journal = suite / "out.journal.jsonl"
    gate = suite / "gate"
    proc = _pytest(suite, env={"TLBENCH_FAKE_GATE": str(gate), "TLBENCH_COMMIT": "c0ffee1", "TLBENCH_COMMIT_DIRTY": "0"})
    _wait_for_items(journal, 4, proc)  # the four items before the gated one are on disk
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    contents = read_journal(journal)
    assert not contents.ended
    assert len(contents.items) == 4 and GATED not in contents.items
    assert len(contents.collected) == 8 and contents.missing[0] == GATED
    out_json = suite / "out.json"
    assert not out_json.exists() or out_json.stat().st_size == 0  # pytest-benchmark wrote nothing

    recovered = suite / "recovered.json"
    assert tlbench_main(["recover", str(journal), "-o", str(recovered)]) == 0
    said = capsys.readouterr().out
    assert "4 timed, 0 failed, 0 skipped of 8 collected items (the run did not end; 4 missing" in said
    assert f"is PARTIAL" in said and GATED in said
    partial = load_results(recovered)
    assert len(partial.records) == 4 and partial.document["tlbench"]["partial"]["run_ended"] is False
    commit = partial.document["commit_info"]  # completed as the results file's is: a copied tree names its commit
    assert commit["id"] == "c0ffee1" and commit["id_source"] == "TLBENCH_COMMIT" and commit["source_digest"].startswith("sha256:")
    assert set(partial.records[0]["samples_s"]) == set(fake_backend.DEVICE_SAMPLES_S)  # the fake timer cycles them
    compare = subprocess.run([sys.executable, "-c", "from pytest_benchmark.cli import main; main()", "compare", str(recovered)],
                             capture_output=True, text=True, cwd=suite)
    assert compare.returncode == 0, compare.stderr
    assert "bn128" in compare.stdout and "bn16" in compare.stdout

    gate.touch()
    resumed = _pytest(suite, f"--tlbench-resume={journal}", env={"TLBENCH_FAKE_GATE": str(gate)})
    output = resumed.communicate()[0]
    assert resumed.returncode == 0, output
    assert "resumed from" in output and "4 items reused, 0 re-measured" in output
    lines = journal.read_text().splitlines()
    second_run = max(i for i, line in enumerate(lines) if json.loads(line)["type"] == "run")
    measured_now = [json.loads(line)["item_id"] for line in lines[second_run:] if json.loads(line)["type"] == "item"]
    assert sorted(measured_now) == sorted(contents.missing)  # only the missing items were measured
    final = load_results(out_json)
    assert len(final.records) == 8 and not final.document["tlbench"].get("partial")
    reused = [r for r in final.records if r.get("resumed_from")]
    assert sorted(r["case_id"] for r in reused) == sorted(e["outcome"]["case_id"] for e in contents.items.values())
    assert not list(suite.glob(".out.json.*.tmp"))

    assert tlbench_main(["compare", str(recovered), str(out_json)]) == 2  # a partial base is refused ...
    assert tlbench_main(["compare", "--allow-partial", str(recovered), str(out_json)]) == 0  # ... unless accepted
    assert "is PARTIAL" in capsys.readouterr().out


def test_resume_remeasures_items_whose_settings_changed(suite):
    first = _pytest(suite, env={"TLBENCH_FAKE_GATE": str(suite)})  # the gate exists: nothing blocks
    assert first.wait() == 0, first.stdout.read()
    journal = suite / "out.journal.jsonl"
    again = _pytest(suite, f"--tlbench-resume={journal}", "--tlbench-max-samples=50", "--benchmark-json=again.json",
                    env={"TLBENCH_FAKE_GATE": str(suite)})
    output = again.communicate()[0]
    assert again.returncode == 0, output
    assert "0 items reused, 8 re-measured" in output
    note = load_results(suite / "again.json").document["tlbench"]
    assert set(note["remeasured"].values()) == {"settings changed"}


def test_resume_remeasures_items_timed_under_another_backend_option(suite):
    """A backend option is part of what an item was measured with (here NVIDIA's L2 flush mode,
    which every backend's run carries): a resume with another value measures every item again."""
    first = _pytest(suite, env={"TLBENCH_FAKE_GATE": str(suite)})
    assert first.wait() == 0, first.stdout.read()
    journal = suite / "out.journal.jsonl"
    same = _pytest(suite, f"--tlbench-resume={journal}", "--benchmark-json=same.json", env={"TLBENCH_FAKE_GATE": str(suite)})
    output = same.communicate()[0]
    assert same.returncode == 0 and "8 items reused, 0 re-measured" in output, output
    other = _pytest(suite, f"--tlbench-resume={journal}", "--tlbench-nvidia-l2-flush=read", "--benchmark-json=other.json",
                    env={"TLBENCH_FAKE_GATE": str(suite)})
    output = other.communicate()[0]
    assert other.returncode == 0 and "0 items reused, 8 re-measured" in output, output
    assert set(load_results(suite / "other.json").document["tlbench"]["remeasured"].values()) == {"settings changed"}


def test_journal_lines_are_durable_and_a_torn_last_line_is_ignored(tmp_path):
    path = tmp_path / "run.journal.jsonl"
    journal = Journal(path)
    journal.append({"type": "run", "journal_version": 1})
    journal.append({"type": "item", "item_id": "a", "status": "timed", "outcome": {}})
    with open(path, "ab") as fh:
        fh.write(b'{"type": "item", "item_id": "b", "sta')  # killed while writing
    contents = read_journal(path)
    assert list(contents.items) == ["a"] and contents.torn_lines == 1
    path.write_text('{"type": "run", "journal_version": 1}\nnot json\n{"type": "end"}\n')
    with pytest.raises(JournalError, match="line 2 is not JSON"):
        read_journal(path)
    with pytest.raises(JournalError, match="no such journal"):
        read_journal(tmp_path / "nope.jsonl")
    assert journal_path_for("results/run.json") == Path("results/run.journal.jsonl")


def test_atomic_write_keeps_the_old_file_whole_when_the_rename_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text('{"old": true}')

    def refuse(*_args):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        atomic_write_text(target, '{"new": true}')
    assert target.read_text() == '{"old": true}' and [p.name for p in tmp_path.iterdir()] == ["out.json"]
    monkeypatch.undo()
    atomic_write_text(target, '{"new": true}')
    assert json.loads(target.read_text()) == {"new": True}


def test_recover_of_a_file_that_is_not_a_journal_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "x.journal.jsonl"
    bad.write_text('{"benchmarks": []}\n')
    assert tlbench_main(["recover", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == f"tlbench: {bad}: line 1 is not a journal entry; pass a *.journal.jsonl file"


def test_under_xdist_every_worker_appends_to_the_one_journal(suite, capsys):
    pytest.importorskip("xdist")
    run = _pytest(suite, "-n", "2", "--tlbench-devices=0,1", env={"TLBENCH_FAKE_GATE": str(suite)})
    output = run.communicate()[0]
    assert run.returncode == 0, output
    journal = suite / "out.journal.jsonl"
    contents = read_journal(journal)
    assert {r["xdist_worker"] for r in contents.runs} == {"gw0", "gw1"} and contents.ended
    assert len(contents.items) == 8 and not contents.missing
    assert tlbench_main(["recover", str(journal), "-o", str(suite / "rec.json")]) == 0
    assert len(load_results(suite / "rec.json").records) == 8 == len(load_results(suite / "out.json").records)


# Two problems, eight configs each; block_N=88 of the second problem waits on the gate
# (TLBENCH_FAKE_GATE_PROBLEM).  The conftest alternates the problems in collection order, so
# pytest reports only the first item of problem A before problem B's chunk starts: the
# other seven are on disk only if the chunk was journaled when it ended.
CHUNK_SUITE = SUITE.replace("problems=[TileProblem(1024, 1024, 1024)]",
                            "problems=[TileProblem(1024, 1024, 1024), TileProblem(2048, 1024, 1024)]")
ALTERNATE = """

def pytest_collection_modifyitems(items):
    first = [i for i in items if "tile-1024x" in i.name]
    second = [i for i in items if "tile-2048x" in i.name]
    items[:] = [i for pair in zip(first, second) for i in pair]
"""
GATED_PROBLEM = "tile-2048x1024x1024-f16"


def _interleaved(cwd: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    """The default interleaved device phase (in the default worker isolation)."""
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-kind=device",
         "--tlbench-seed=7", "--benchmark-json=out.json", *args],
        cwd=cwd, env={**os.environ, "TLBENCH_FAKE_GATE_PROBLEM": GATED_PROBLEM, **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


@pytest.fixture
def chunk_suite(pytester):
    pytester.makeconftest(CONFTEST + ALTERNATE)
    pytester.makepyfile(test_journal_suite=CHUNK_SUITE)
    return pytester.path


def test_kill_mid_phase_keeps_the_finished_chunks_and_resume_measures_only_the_rest(chunk_suite):
    journal = chunk_suite / "out.journal.jsonl"
    gate = chunk_suite / "gate"
    proc = _interleaved(chunk_suite, env={"TLBENCH_FAKE_GATE": str(gate)})
    _wait_for_items(journal, 8, proc)  # problem A's chunk ended; problem B's chunk holds at the gate
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    contents = read_journal(journal)
    lines = _item_lines(journal)
    assert len(lines) == len(contents.items) == 8  # one line per item: no duplicate from pytest's report
    assert all(e["item_id"].startswith("device-fake-tile-1024x1024x1024-f16-") for e in contents.items.values())
    assert all(e["status"] == "timed" and e["benchmark"]["stats"]["data"] for e in contents.items.values())
    assert len(contents.missing) == 8 and all(GATED_PROBLEM in i for i in contents.missing)

    gate.touch()
    resumed = _interleaved(chunk_suite, f"--tlbench-resume={journal}", env={"TLBENCH_FAKE_GATE": str(gate)})
    output = resumed.communicate()[0]
    assert resumed.returncode == 0, output
    assert "8 items reused, 0 re-measured" in output
    text = journal.read_text().splitlines()
    second_run = max(i for i, line in enumerate(text) if json.loads(line)["type"] == "run")
    measured_now = [json.loads(line)["item_id"] for line in text[second_run:] if json.loads(line)["type"] == "item"]
    assert sorted(measured_now) == sorted(contents.missing)  # only problem B was measured, each item once
    final = load_results(chunk_suite / "out.json")
    assert len(final.records) == 16
    assert {r["case_id"] for r in final.records if r.get("resumed_from")} == {e["outcome"]["case_id"] for e in contents.items.values()}


def test_a_chunk_journals_the_record_and_entry_that_reach_the_json(chunk_suite):
    run = _interleaved(chunk_suite, env={"TLBENCH_FAKE_GATE": str(chunk_suite)})  # the gate exists: nothing blocks
    output = run.communicate()[0]
    assert run.returncode == 0, output
    lines = _item_lines(chunk_suite / "out.journal.jsonl")
    assert len(lines) == len({e["item_id"] for e in lines}) == 16
    final = {b["fullname"]: b for b in json.loads((chunk_suite / "out.json").read_text())["benchmarks"]}
    for entry in lines:
        bench = final[entry["nodeid"]]
        assert entry["benchmark"]["stats"] == bench["stats"]
        assert entry["benchmark"]["extra_info"] == bench["extra_info"]
        assert {k: v for k, v in entry["benchmark"].items() if k != "stats"} == {k: v for k, v in bench.items() if k != "stats"}
        assert entry["outcome"] == {**bench["extra_info"]["tlbench"], "status": "timed"}


def test_a_torn_last_line_is_dropped_before_appending_and_the_journal_reads_again(tmp_path):
    from tlbench.harness.results.files.journal import Journal, read_journal

    path = tmp_path / "run.journal.jsonl"
    journal = Journal(path)
    journal.append({"type": "run", "journal_version": 1})
    journal.append({"type": "item", "item_id": "a", "status": "skipped", "outcome": {}})
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type": "item", "item_id": "b", "sta')  # killed while writing
    assert journal.repair_torn_tail() == len(b'{"type": "item", "item_id": "b", "sta')
    assert path.read_bytes() == whole and journal.repair_torn_tail() == 0
    journal.append({"type": "run", "journal_version": 1})  # the resumed run's header, on a line of its own
    contents = read_journal(path)
    assert len(contents.runs) == 2 and contents.torn_lines == 0 and list(contents.items) == ["a"]
