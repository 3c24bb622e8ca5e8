"""A Ctrl-C ends the run, never a kernel (harness/measure/interrupt.py).

Real pytest sessions over the fake backend (tests/fake_backend.py) in a process group of their
own, as a terminal's foreground job is: the TEST-ONLY config block_K=48 compiles through a real
child "compiler" that writes its pid to a gate file and sleeps; the test waits for that file,
then sends SIGINT to the whole group (``os.killpg``, as Ctrl-C does: pytest, its workers and
the child compiler).  The run must end as pytest's interrupted run (exit 2, not 1 and not a
signal), with no failed record of the item in the results file or the journal, and say it was
interrupted; in the process that ran the build (the worker, or pytest itself) the child
compiler's death comes back as a wordless RuntimeError, as tvm-ffi hands back a
KeyboardInterrupt.  A real build failure in the same setup (the child compiler killed by
another signal, or a compiler error) is still FAILED.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fake_backend

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="interrupt_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, k, 128, "auto", 2) for n, k in CONFIGS], vendor=False)

def test_fake(tlbench):
    tlbench.run()
"""
SLOW = "bn128-bk48"  # the TEST-ONLY slow child compiler's config
WAIT_S = 120.0  # generous: how long the gate file may take to appear, and the run to end after the signal


def _as_a_foreground_job() -> None:
    """In the child before exec: Ctrl-C's default action, as a terminal's job has it.  A test
    process started with SIGINT ignored (nohup, or ``&`` in a non-interactive shell) would hand
    that on, and Python installs no KeyboardInterrupt handler for an ignored SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(tmp_path: Path, configs, *options: str, conftest: str = fake_backend.CONFTEST) -> tuple[subprocess.Popen, Path]:
    (tmp_path / "conftest.py").write_text(conftest)
    (tmp_path / "test_interrupt_suite.py").write_text(SUITE.replace("CONFIGS", repr(configs)))
    gate = tmp_path / "compiler.pid"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}  # a run of its own
    env["TLBENCH_FAKE_COMPILE_GATE"] = str(gate)
    env["PYTHONFAULTHANDLER"] = "1"  # a run that does not end is sent SIGABRT: every thread's stack lands in run.log
    log = open(tmp_path / "run.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--benchmark-json=out.json", *options],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,  # its own process group
        preexec_fn=_as_a_foreground_job,
    )
    log.close()
    return proc, gate


def _child_pid(proc: subprocess.Popen, gate: Path) -> int:
    deadline = time.monotonic() + WAIT_S
    while not (gate.exists() and gate.read_text().strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL) if proc.poll() is None else None
            pytest.fail(f"the slow compile never started (rc {proc.poll()})")
        time.sleep(0.05)
    return int(gate.read_text().strip())


def _finish(proc: subprocess.Popen, tmp_path: Path) -> tuple[int, str]:
    try:
        rc = proc.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGABRT)  # faulthandler writes where each thread of the pytest process waits
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail("the run did not end after the signal (its threads' stacks at the end):\n"
                    + (tmp_path / "run.log").read_text()[-8000:])
    return rc, (tmp_path / "run.log").read_text()


def _failed_records(tmp_path: Path) -> list[dict]:
    """Failed items in the results file (if one was written) and in the journal."""
    found = []
    if (tmp_path / "out.json").exists():
        found += json.loads((tmp_path / "out.json").read_text())["tlbench"]["failed"]
    journal = tmp_path / "out.journal.jsonl"
    if journal.exists():
        lines = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
        found += [e["outcome"] for e in lines if e.get("type") == "item" and e.get("status") != "timed"]
    return found


@pytest.mark.parametrize("options", [
    ("--tlbench-isolation=inprocess",),  # the build in the pytest process itself
    (),  # in the backend's worker process
    ("--tlbench-compile-jobs=2",),  # two compile jobs, each a worker of its own
    ("--tlbench-kind=device", "--tlbench-max-seconds=0.2"),  # a device item's build in the device worker
    ("-n", "2"),  # under pytest-xdist: its workers get the Ctrl-C too
], ids=["inprocess", "worker", "two-jobs", "device", "xdist"])
def test_ctrl_c_of_the_process_group_interrupts_the_run_and_fails_no_item(tmp_path, options):
    proc, gate = _start(tmp_path, [(128, 32), (128, 48), (64, 32)], *options)
    _child_pid(proc, gate)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
    rc, log = _finish(proc, tmp_path)
    assert rc == pytest.ExitCode.INTERRUPTED, f"rc {rc}\n{log[-3000:]}"  # not 1 (a failure), not a signal
    assert not _failed_records(tmp_path), _failed_records(tmp_path)
    assert "the run was interrupted (Ctrl-C)" in log and "--tlbench-resume" in log, log[-3000:]
    assert "FAILED" not in log, log[-3000:]


def test_ctrl_c_during_two_backends_compile_phases_side_by_side_interrupts_both_and_fails_no_item(tmp_path, monkeypatch):
    """An overlapped run: ``fake`` times device items, and its compile phase and ``fake_gone``'s
    (no device) run side by side, each on a thread of its own, when the Ctrl-C comes."""
    conftest = fake_backend.CONFTEST + (
        "from fake_backend import UnavailableFakeBackend\n\n"
        "def pytest_tlbench_register_backends(registry):\n"
        "    registry.register('fake', FakeBackend)\n"
        "    registry.register('fake_gone', UnavailableFakeBackend)\n")
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("TLBENCH_TRACE", str(trace))
    proc, gate = _start(tmp_path, [(128, 32), (128, 48), (64, 32)], "--tlbench-backend=fake,fake_gone", "--tlbench-overlap=on",
                        "--tlbench-max-seconds=0.2", conftest=conftest)
    _child_pid(proc, gate)
    os.killpg(proc.pid, signal.SIGINT)
    rc, log = _finish(proc, tmp_path)
    marks = [json.loads(line) for line in trace.read_text().splitlines()]
    assert any(m["event"] == "compile phases side by side" for m in marks)
    done = [m for m in marks if m["event"] == "compile phase rounds done"]  # the phases' threads ended after the Ctrl-C,
    assert done and all(m["interrupted"] for m in done), (done, log[-3000:])  # with their workers' interrupted answers
    assert rc == pytest.ExitCode.INTERRUPTED, f"rc {rc}\n{log[-3000:]}"
    assert not _failed_records(tmp_path), _failed_records(tmp_path)
    assert "the run was interrupted (Ctrl-C)" in log and "FAILED" not in log, log[-3000:]


@pytest.mark.parametrize("options", [("--tlbench-isolation=inprocess",), ()], ids=["inprocess", "worker"])
def test_a_real_build_failure_in_the_same_setup_is_still_failed(tmp_path, options):
    proc, gate = _start(tmp_path, [(128, 32), (128, 48), (128, 7)], "--tlbench-kind=compile", *options)
    os.kill(_child_pid(proc, gate), signal.SIGTERM)  # the child compiler dies, not of an interrupt
    rc, log = _finish(proc, tmp_path)
    assert rc == pytest.ExitCode.TESTS_FAILED, f"rc {rc}\n{log[-3000:]}"
    failed = {r["case_id"].split("-bm128-")[1]: r for r in json.loads((tmp_path / "out.json").read_text())["tlbench"]["failed"]}
    assert set(failed) == {"bn128-bk48-t128-auto-s2", "bn128-bk7-t128-auto-s2"}, failed
    assert f"exited with status {-signal.SIGTERM}" in failed["bn128-bk48-t128-auto-s2"]["error"]
    assert "block_K=7 is not a legal tile" in failed["bn128-bk7-t128-auto-s2"]["error"]
    assert "interrupted" not in log


def test_what_reads_as_an_interrupt():
    from tlbench.harness.measure.interrupt import died_of_interrupt, interrupted_outcome, is_interrupt

    assert is_interrupt(KeyboardInterrupt()) and died_of_interrupt(-2) and died_of_interrupt(130)
    wrapped = RuntimeError("wrapper")
    wrapped.__cause__ = KeyboardInterrupt()
    assert is_interrupt(wrapped) and is_interrupt(RuntimeError("RuntimeError: KeyboardInterrupt: "))
    assert not is_interrupt(RuntimeError("FakeCompilerError: block_K=7 is not a legal tile"))
    assert not died_of_interrupt(1) and not died_of_interrupt(-15) and not died_of_interrupt(None)
    assert interrupted_outcome(RuntimeError("nvcc: error"), "compile", False) is None
    gone = interrupted_outcome(RuntimeError(""), "compile", True)  # a wordless failure once the run saw the Ctrl-C
    assert gone.status == "interrupted" and "interrupted (Ctrl-C) during compile" in gone.reason
