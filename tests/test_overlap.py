"""Compile work beside device timing (harness/measure/overlap.py, cpu_plan.py, pytest_plugin/overlap_start.py).

The decision and the CPU split are pure logic, tested with made-up CPU lists and sibling maps.
A real pytest run of the named FakeBackend (tests/fake_backend.py: its timer reports the CPUs
it ran on, its compiles log theirs) with ``--tlbench-overlap on`` on this 2-CPU box checks the
scheduling: the device phase starts before the compile phase ends, the compile items are timed
in a fresh worker on the compile CPU, and the device worker times on its own CPU.  That an
overlapped run measures the same as one that is not is for a GPU host to show (results/README.md).
"""

import json
import os
import subprocess
import sys

import pytest

from tlbench.harness.measure.cpu_plan import COMPILE_NICE

import fake_backend
from tlbench.harness.measure.cpu_plan import CpuPlan, describe, parse, pin
from tlbench.harness.measure.overlap import decide


def _no_smt(cpu):
    return (cpu,)


def _smt_pairs(cpu):  # CPUs n and n + 8 share a core, as on a 16-thread host
    return (cpu % 8, cpu % 8 + 8)


def test_each_device_worker_gets_its_own_core_and_compile_work_the_rest():
    plan = CpuPlan.split(range(16), ["nvidia:0"], _no_smt)
    assert plan.device == {"nvidia:0": (15,)} and plan.compile == tuple(range(15))
    smt = CpuPlan.split(range(16), ["nvidia:0", "nvidia:1"], _smt_pairs)
    assert smt.device == {"nvidia:0": (7, 15), "nvidia:1": (6, 14)}  # a core each: both hyperthreads
    assert set(smt.compile) == set(range(16)) - {6, 7, 14, 15}
    assert CpuPlan.split([0, 1], ["nvidia:0"], _no_smt, min_compile=2) is None
    assert describe([0, 1, 2, 3, 8, 10, 11]) == "0-3,8,10-11" and parse("0-3,8,10-11") == {0, 1, 2, 3, 8, 10, 11}


def test_the_decision_says_why_or_why_not():
    on = decide("auto", ["nvidia"], ["ascend", "nvidia"], range(16), ["nvidia:0"], _no_smt)
    assert on.on and on.reason == ("compile items of ascend, nvidia beside device timing of nvidia; "
                                   "device workers: nvidia:0 on CPU 15; compile work on CPUs 0-14")
    assert on.note("device")["compile_cpus"] == "0-14" and on.note("compile")["beside"] == "device timing of nvidia"
    assert not decide("auto", [], ["ascend"], range(16), [], _no_smt).on  # a CPU box: no device timing
    small = decide("auto", ["nvidia"], ["nvidia"], range(4), ["nvidia:0"], _no_smt)
    assert not small.on and "too few" in small.reason  # 3 left, auto wants 4
    assert decide("on", ["nvidia"], ["nvidia"], range(2), ["nvidia:0"], _no_smt).on
    assert not decide("off", ["nvidia"], ["nvidia"], range(16), ["nvidia:0"], _no_smt).on
    with pytest.raises(ValueError, match="--tlbench-overlap takes auto, on, off"):
        decide("sometimes", [], [], [], [])


def test_pin_moves_every_thread_of_this_process():
    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs and sched_setaffinity")
    before = os.sched_getaffinity(0)
    one = min(before)
    try:
        pin({one})
        tids = os.listdir("/proc/self/task")
        assert all(os.sched_getaffinity(int(t)) == {one} for t in tids)
    finally:
        pin(before)


SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="both_kinds", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, 128, 32, 128, "auto", s) for s in (1, 2, 3)], vendor=False)

def test_both(tlbench):
    tlbench.run()
"""


def _marks(trace):
    """The trace's events in the order they were written (TLBENCH_TRACE: one JSON object a line)."""
    return [json.loads(line) for line in trace.read_text().splitlines()]


def _first(marks, event, **fields):
    return next(k for k, m in enumerate(marks) if m["event"] == event and all(m.get(f) == v for f, v in fields.items()))


def _run(tmp_path, overlap):
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_both.py").write_text(SUITE)
    log, trace = tmp_path / f"compiles-{overlap}.log", tmp_path / f"trace-{overlap}.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only",
         f"--tlbench-overlap={overlap}", "--tlbench-criterion=fixed:samples=20", f"--benchmark-json=out-{overlap}.json"],
        cwd=tmp_path, capture_output=True, text=True,
        env={**env, "TLBENCH_FAKE_COMPILE_LOG": str(log), "TLBENCH_TRACE": str(trace)},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return done, json.loads((tmp_path / f"out-{overlap}.json").read_text()), log, trace


def test_an_overlapped_run_times_compile_items_in_a_fresh_worker_on_other_cpus_while_the_device_phase_runs(tmp_path):
    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs")
    done, doc, log, trace = _run(tmp_path, "on")
    device_cpu, compile_cpu = str(max(os.sched_getaffinity(0))), ",".join(map(str, sorted(os.sched_getaffinity(0))[:-1]))
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    device = [r for r in records if r["kind"] == "device"]
    compiles = [r for r in records if r["kind"] == "compile"]
    assert len(device) == 3 and len(compiles) == 3
    assert all(f"measured on CPUs {device_cpu} in pid" in " ".join(r["notes"]) for r in device)  # its own CPU
    assert all(r["overlap"]["device_worker_cpus"] == {"fake:0": device_cpu} for r in records)
    device_pid = {n.split(" in pid ")[1].split(",")[0] for r in device for n in r["notes"] if " in pid " in n}
    cold = [line.split() for line in log.read_text().splitlines() if "cold=True" in line]
    assert cold and {f[4] for f in cold} == {f"cpus={compile_cpu}"}  # the compile rounds: on the compile CPUs
    assert {f[5] for f in cold} == {f"nice={COMPILE_NICE}"}  # yielding to the device phase's builds
    assert all(r["overlap"]["compile_nice"] == COMPILE_NICE for r in compiles)
    assert {f[3] for f in cold}.isdisjoint({f"pid={p}" for p in device_pid})  # and not in the device worker
    marks = _marks(trace)
    assert _first(marks, "phase start", backend="fake") < _first(marks, "compile phase end", backend="fake")  # device timing began first
    assert "overlap: compile items of fake beside device timing of fake" in done.stdout


def test_without_overlap_the_compile_items_wait_and_nothing_is_pinned(tmp_path):
    done, doc, log, trace = _run(tmp_path, "off")
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert not any("overlap" in r for r in records)
    assert {line.split()[5] for line in log.read_text().splitlines() if "cold=True" in line} == {f"nice={os.nice(0)}"}
    marks = _marks(trace)
    assert _first(marks, "compile phase end", backend="fake") < _first(marks, "phase start", backend="fake")
    assert "no overlap: off (--tlbench-overlap off)" in done.stdout


def test_an_overlapped_run_times_every_backends_compile_items_side_by_side(tmp_path):
    """Two backends with compile items (``fake`` times device items, ``fake_gone`` has no device):
    their compile phases start together, beside the device phase, and each compile record says
    what it was measured beside."""
    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs")
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST + (
        "from fake_backend import UnavailableFakeBackend\n\n"
        "def pytest_tlbench_register_backends(registry):\n"
        "    registry.register('fake', FakeBackend)\n"
        "    registry.register('fake_gone', UnavailableFakeBackend)\n"))
    (tmp_path / "test_both.py").write_text(SUITE)
    trace = tmp_path / "trace.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake,fake_gone", "--benchmark-only",
         "--tlbench-overlap=on", "--tlbench-criterion=fixed:samples=20", "--benchmark-json=out.json"],
        cwd=tmp_path, capture_output=True, text=True, env={**env, "TLBENCH_TRACE": str(trace)},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "out.json").read_text())["benchmarks"]]
    compiles = {(r["backend"], r["case_id"]): r for r in records if r["kind"] == "compile"}
    assert {b for b, _ in compiles} == {"fake", "fake_gone"} and len(compiles) == 6
    assert {r["overlap"]["beside"] for (b, _), r in compiles.items() if b == "fake"} == {
        "device timing of fake and the compile items of fake_gone"}
    assert {r["overlap"]["beside"] for (b, _), r in compiles.items() if b == "fake_gone"} == {
        "device timing of fake and the compile items of fake"}
    marks = _marks(trace)
    both = _first(marks, "compile phases side by side")
    assert marks[both]["backends"] in ("fake,fake_gone", "fake_gone,fake")
    for one, other in (("fake", "fake_gone"), ("fake_gone", "fake")):  # each began before the other's rounds were done
        assert _first(marks, "compile phase start", backend=one) < _first(marks, "compile phase rounds done", backend=other)
