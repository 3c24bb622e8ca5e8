"""Faults, hangs and compiler crashes cost one item: real pytest processes, the
named FakeBackend's TEST-ONLY fault injection (tests/fake_backend.py), the real worker.

What is pinned: items run in a worker process (not in pytest's); a segfault in the compiler,
a Python crash in the check, a segfault while timing, a sticky device error and a hang each
fail only their item, with the stage and the error (TIMEOUT for the hang) and the worker's
restart count, in the JSON and the summary; the worker is restarted and the next item runs
in a clean process; pytest exits 1, by its own status; ``tlbench compare`` against a clean
run calls each newly failing kernel a regression and says why.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fake_backend
from tlbench.harness.cli import main as tlbench_main

CONFTEST = fake_backend.CONFTEST

# (block_N, block_K) per config, in order; the faulty ones are TEST-ONLY injections.
NORMAL = [(128, 32), (64, 32), (32, 32), (16, 32), (128, 64), (64, 64)]
FAULTS = {
    (128, 13): ("compile", "SIGSEGV"),  # the compiler segfaults (compile and device item)
    (24, 32): ("check", "FakeCheckCrash"),
    (40, 32): ("run", "SIGSEGV"),
    (72, 32): ("run", "FakeIllegalAddress"),
    (56, 32): ("run", "TIMEOUT"),
}
ORDER = [(128, 32), (128, 13), (64, 32), (24, 32), (32, 32), (40, 32), (16, 32), (72, 32), (128, 64), (56, 32), (64, 64)]

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="fault_suite",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(128, n, k, 128, "auto", 2) for n, k in CONFIGS],
    vendor=False,
)

def test_fake(tlbench):
    tlbench.run()
"""


def _case(n: int, k: int) -> str:
    return f"tile-1024x1024x1024-f16-bm128-bn{n}-bk{k}-t128-auto-s2"


def _run(path: Path, configs, out: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    (path / "test_fault_suite.py").write_text(SUITE.replace("CONFIGS", repr(configs)))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--tlbench-timeout=2", f"--benchmark-json={out}", *args],
        cwd=path, capture_output=True, text=True, env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    path = tmp_path_factory.mktemp("faults")
    (path / "conftest.py").write_text(CONFTEST)
    clean = _run(path, NORMAL, "clean.json")
    faulty = _run(path, ORDER, "faulty.json", "-v")  # -v: the per-item table with each fault's words
    return path, clean, faulty


def test_each_fault_fails_only_its_item_with_stage_error_and_restart_count(runs):
    path, clean, faulty = runs
    assert clean.returncode == 0, clean.stdout[-3000:]
    assert faulty.returncode == 1, faulty.stdout[-3000:]  # pytest's own status, not a signal
    doc = json.loads((path / "faulty.json").read_text())
    failed = {(f["kind"], f["case_id"]): f for f in doc["tlbench"]["failed"]}
    expected = {("device", _case(*c)): f for c, f in FAULTS.items()} | {("compile", _case(128, 13)): FAULTS[(128, 13)]}
    assert set(failed) == set(expected)
    for key, (stage, words) in expected.items():
        assert failed[key]["stage"] == stage, (key, failed[key])
        assert words in failed[key]["error"], (key, failed[key]["error"])
        assert failed[key]["worker"]["restarted"] is True
    hang = failed[("device", _case(56, 32))]
    assert hang["error"].startswith("TIMEOUT: no answer within 2 s in stage run")
    # where the hung worker was, read before the kill: its main thread first, innermost frame first
    assert re.search(r"its main thread was in fake_backend\.py:\d+ _inject <- ", hang["error"]), hang["error"]
    assert hang["worker"]["stacks"].startswith("Thread 0x") or hang["worker"]["stacks"].startswith("Current thread 0x")
    restarts = [failed[("compile", _case(128, 13))]["worker"]["restarts"]]
    restarts += [failed[("device", _case(*c))]["worker"]["restarts"] for c in ORDER if c in FAULTS]
    # counted across the session, one per fault, plus two: the round-robin compile batch died at
    # bk13's segfault (its items were then timed one by one, so only bk13 failed), and bk13's
    # background compile (prefetch) crashed a worker while another item ran; that item was
    # retried and timed, not blamed
    assert restarts == sorted(set(restarts)) and restarts[-1] == len(failed) + 2
    timed = {(b["extra_info"]["tlbench"]["kind"], b["extra_info"]["tlbench"]["case_id"]) for b in doc["benchmarks"]}
    every = {(kind, _case(*c)) for kind in ("compile", "device") for c in ORDER}
    assert timed == every - set(failed)  # everything else was measured


def test_an_exception_raised_in_the_worker_keeps_its_traceback_across_the_process_boundary(runs):
    """The check crash is raised in the worker's check, the illegal address in its timed batch
    (a sample request): each failed record holds the worker's own traceback, as text, naming
    the function that raised; a worker that died by a signal left none."""
    path, _, faulty = runs
    failed = {(f["kind"], f["case_id"]): f for f in json.loads((path / "faulty.json").read_text())["tlbench"]["failed"]}
    crash = failed[("device", _case(24, 32))]["traceback"]
    assert re.search(r'fake_backend\.py", line \d+, in check\n', crash) and "FakeCheckCrash" in crash, crash
    illegal = failed[("device", _case(72, 32))]["traceback"]
    assert re.search(r'fake_backend\.py", line \d+, in _inject\n', illegal) and "FakeIllegalAddress" in illegal, illegal
    assert "traceback" not in failed[("device", _case(40, 32))]  # SIGSEGV: the worker died, no Python traceback
    assert "in _inject" in faulty.stdout  # -v prints each traceback in the failure section


def test_items_run_in_a_worker_process_that_is_replaced_after_a_fault(runs):
    path, _, faulty = runs
    doc = json.loads((path / "faulty.json").read_text())
    pids = {}
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if rec["kind"] == "device":
            pids[rec["case_id"]] = int(re.search(r"pid (\d+)", rec["notes"][0]).group(1))
    assert os.getpid() not in pids.values()
    assert len(set(pids.values())) >= 2  # faults replaced the worker: items were timed in fresh ones
    # after the sticky fault (bn72) poisoned its worker, no item failed with the sticky error:
    doc_failed = " ".join(f["error"] for f in doc["tlbench"]["failed"])
    assert "FakeStickyError" not in doc_failed


def test_summary_shows_the_faults_and_restarts(runs):
    path, _, faulty = runs
    out = faulty.stdout
    assert re.search(r"FAILED \[run\]: TIMEOUT: no answer within 2 s in stage run.*\(worker restarted; \d+ restarts so far\)", out)
    assert re.search(r"FAILED \[check\]: RuntimeError: FakeCheckCrash", out)
    # a multi-line fault shows its informative first line (type and words), not the last advice line
    headline = "FAILED [run]: RuntimeError: FakeIllegalAddress: an illegal memory access was encountered (test-only injection)"
    # the -v table: the item's row (its config under the problem heading), its status on the row or the next line
    lines = out.splitlines()
    config = _case(72, 32).removeprefix("tile-1024x1024x1024-f16-")
    rows = [i for i, line in enumerate(lines) if line.startswith(f"  {config} ")]
    table = [line for i in rows for line in lines[i:i + 2] if "FAILED [run]" in line]
    assert table and all(headline in line and "FAKE_USE_DSA" not in line for line in table), table
    assert re.search(re.escape(f"FAILED device {_case(72, 32)}: [run]: RuntimeError: FakeIllegalAddress") + r".*restarts so far", out)
    doc = json.loads((path / "faulty.json").read_text())  # the record keeps the whole text
    sticky = next(f for f in doc["tlbench"]["failed"] if f["case_id"] == _case(72, 32) and f["kind"] == "device")
    assert "FakeIllegalAddress: an illegal memory access" in sticky["error"] and "FAKE_USE_DSA" in sticky["error"]
    assert "worker process died (SIGSEGV (signal 11)) during compile" in out


def test_compare_calls_a_newly_faulting_kernel_a_regression_and_says_why(runs, capsys):
    path, _, _ = runs
    base = _run(path, ORDER, "base.json", env={"TLBENCH_FAKE_FAULTS": "off"})  # the same configs, all fine
    assert base.returncode == 0, base.stdout[-3000:]
    code = tlbench_main(["compare", str(path / "base.json"), str(path / "faulty.json"), "--markdown", str(path / "cmp.md")])
    assert code == 1 and "6 regression(s)" in capsys.readouterr().out
    out = (path / "cmp.md").read_text()
    assert re.search(r"FAILED.*bn56-bk32.*failed in new \[run\]: TIMEOUT", out), out
    assert re.search(r"FAILED.*bn40-bk32.*failed in new \[run\]: worker process died \(SIGSEGV", out), out


def test_under_xdist_each_device_has_one_persistent_worker_pinned_to_it(tmp_path):
    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    done = _run(tmp_path, NORMAL, "xdist.json", "-n", "2", "--tlbench-devices=3,5", "--tlbench-kind=device")
    assert done.returncode == 0, done.stdout[-3000:]
    doc = json.loads((tmp_path / "xdist.json").read_text())
    where = [re.search(r"pid (\d+), FAKE_VISIBLE_DEVICES=(\S+)", b["extra_info"]["tlbench"]["notes"][-1]).groups()
             for b in doc["benchmarks"]]
    assert len(where) == len(NORMAL)
    pids_by_device: dict[str, set[str]] = {}
    for pid, device in where:
        pids_by_device.setdefault(device, set()).add(pid)
    assert set(pids_by_device) == {"3", "5"}  # each pytest worker's device process sees its own device
    assert all(len(p) == 1 for p in pids_by_device.values())  # one persistent process per device
    assert pids_by_device["3"] != pids_by_device["5"]


EARLY_CONFTEST = CONFTEST + """
import json
from fake_backend import UnavailableFakeBackend
from tlbench.harness.pytest_plugin.state import STATE

def pytest_tlbench_register_backends(registry):
    registry.register("fake", FakeBackend)
    registry.register("fake_gone", UnavailableFakeBackend)

FACTS = {}

def pytest_collection_modifyitems(config, items):
    sessions = config.stash[STATE].devices.workers._sessions
    FACTS["during_collection"] = sorted(n for (n, _), s in sessions.items() if s.started)

def pytest_runtest_setup(item):
    FACTS.setdefault("at_first_item", sorted(n for n, _ in item.config.stash[STATE].devices.workers._sessions))

def pytest_unconfigure(config):
    with open("facts.json", "w") as fh:
        json.dump(FACTS, fh)
"""


def test_workers_start_during_collection_and_unused_ones_end(tmp_path):
    (tmp_path / "conftest.py").write_text(EARLY_CONFTEST.replace(
        'def pytest_tlbench_register_backends(registry):\n    registry.register("fake", FakeBackend)\n', "", 1))
    (tmp_path / "test_fault_suite.py").write_text(SUITE.replace("CONFIGS", repr(NORMAL[:2])))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake,fake_gone", "--tlbench-seed=3",
         "-k", "not fake_gone", "--benchmark-json=early.json"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    facts = json.loads((tmp_path / "facts.json").read_text())
    assert facts["during_collection"] == ["fake", "fake_gone"]  # both asked for by name: started before collection ended
    assert facts["at_first_item"] == ["fake"]  # fake_gone has no item left after -k: its worker was ended


def test_the_setup_compile_runs_in_the_worker_and_a_crash_there_costs_nothing_else():
    from tile_family import TileConfig, TileProblem
    from tlbench.harness.core.cases import Case, MeasurePolicy
    from tlbench.harness.core.record import BenchItem
    from tlbench.harness.measure.outcome import Outcome
    from tlbench.harness.measure.worker_session import WorkerSession
    from tlbench.harness.measure.worker_spec import WorkerSpec

    def item(n, k):
        return BenchItem("fake", "compile", Case(TileProblem(1024, 1024, 1024), TileConfig(128, n, k, 128, "auto", 2)))

    worker = WorkerSession(WorkerSpec(backend="fake", factory="fake_backend:FakeBackend"))
    try:
        seconds = worker.setup(item(128, 32), MeasurePolicy(), 3)
        assert isinstance(seconds, float) and seconds >= 0 and worker.restarts == 0
        crashed = worker.setup(item(128, 13), MeasurePolicy(), 3)  # TEST-ONLY: the compiler segfaults
        assert isinstance(crashed, Outcome) and crashed.stage == "compile" and "SIGSEGV" in crashed.reason
        assert worker.restarts == 1
        timed = worker.run(item(128, 32), MeasurePolicy(), 1, 3)  # a fresh worker takes the next request
        assert timed.status == "timed" and timed.record["kind"] == "compile"
    finally:
        worker.close()
