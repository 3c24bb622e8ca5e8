"""The compile pool's cache warmer (harness/measure/cache_warmer.py) with a test-only backend
that writes down who built what (tests/toys/marking_backend.py): each kernel is built first in
a child process, then loaded in this one; a child's failure is only a hint; small hosts get no
children."""

import os
from pathlib import Path

import pytest

from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.measure.cache_warmer import CacheWarmer, processes
from tlbench.harness.measure.compile_pool import CompilePool

TOYS = Path(__file__).parent / "toys"


def test_each_kernel_is_built_in_a_child_then_loaded_here(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TOYS))
    from marking_backend import MarkedCase, MarkingBackend, Refused

    warmer = CacheWarmer("marking_backend:MarkingBackend", {"dir": str(tmp_path)}, [str(TOYS)], 2)
    pool = CompilePool(workers=2, warmer_of=lambda _backend: warmer)
    backend = MarkingBackend(BackendOptions({"dir": str(tmp_path)}))
    cases = [MarkedCase(f"k{i}") for i in range(4)] + [MarkedCase("bad0")]
    try:
        pool.prefetch(backend, cases)
        assert [pool.get(backend, c) for c in cases[:4]] == [f"built k{i} in {os.getpid()}" for i in range(4)]
        with pytest.raises(Refused, match="bad0: refused"):  # the child's failure was a hint; this one is the item's
            pool.get(backend, cases[4])
    finally:
        pool.close()
    builds = [line.split() for line in (tmp_path / "builds.txt").read_text().splitlines()]
    for case in cases:
        pids = [int(pid) for pid, cid in builds if cid == case.case_id]
        assert len(pids) == 2 and pids[0] != os.getpid() and pids[1] == os.getpid(), (case, builds)


def test_a_pool_for_several_backends_asks_for_each_ones_warmer_once(tmp_path, monkeypatch):
    """``warmer_of``: the session's own pool (in-process isolation) gets a warmer per backend
    name, asked once; a backend given None builds on threads only."""
    monkeypatch.syspath_prepend(str(TOYS))
    from marking_backend import MarkedCase, MarkingBackend

    asked: list[str] = []

    def warmer_of(backend):
        asked.append(backend.name)
        if backend.name == "threads_only":
            return None
        return CacheWarmer("marking_backend:MarkingBackend", {"dir": str(tmp_path / "a")}, [str(TOYS)], 2)

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    children = MarkingBackend(BackendOptions({"dir": str(tmp_path / "a")}))
    alone = MarkingBackend(BackendOptions({"dir": str(tmp_path / "b")}))
    alone.name = "threads_only"
    pool = CompilePool(workers=2, warmer_of=warmer_of)
    try:
        pool.prefetch(children, [MarkedCase(f"k{i}") for i in range(3)])
        pool.prefetch(alone, [MarkedCase(f"t{i}") for i in range(3)])
        pool.wait_idle()
    finally:
        pool.close()
    assert sorted(asked) == ["marking", "threads_only"]
    pids_a = [int(line.split()[0]) for line in (tmp_path / "a" / "builds.txt").read_text().splitlines()]
    pids_b = {int(line.split()[0]) for line in (tmp_path / "b" / "builds.txt").read_text().splitlines()}
    assert len(pids_a) == 6 and sum(pid != os.getpid() for pid in pids_a) == 3  # each case: a child, then here
    assert pids_b == {os.getpid()}


def test_one_warmer_that_serves_two_backends_is_closed_once(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TOYS))
    from marking_backend import MarkedCase, MarkingBackend

    class CountingWarmer:  # TEST ONLY: stands in for CacheWarmer, to count its closes
        closes = 0

        def warm(self, case):
            from concurrent.futures import Future

            done = Future()
            done.set_result(None)
            return done

        def close(self):
            CountingWarmer.closes += 1

    shared = CountingWarmer()
    first, second = (MarkingBackend(BackendOptions({"dir": str(tmp_path)})) for _ in range(2))
    second.name = "marking_too"
    pool = CompilePool(workers=2, warmer_of=lambda _backend: shared)
    try:
        pool.prefetch(first, [MarkedCase("k0")])
        pool.prefetch(second, [MarkedCase("k1")])
        pool.wait_idle()
    finally:
        pool.close()
    assert CountingWarmer.closes == 1


def test_a_small_host_gets_no_children():
    assert processes(2) == 0 and processes(3) == 0 and processes(4) == 4 and processes(16) == 16


SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="warm_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (128, 64, 32)], vendor=False)

def test_fake(tlbench):
    tlbench.run()
"""


def _device_run(pytester, monkeypatch, log, processes=None, *extra):
    import fake_backend

    monkeypatch.setenv("TLBENCH_FAKE_COMPILE_LOG", str(log))
    if processes is not None:
        monkeypatch.setenv("TLBENCH_BUILD_PROCESSES", processes)
    pytester.makeconftest(fake_backend.CONFTEST)
    pytester.makepyfile(test_warm_suite=SUITE)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-kind=device",
                                         "--benchmark-only", *extra)


def _warm_compiles(log):
    """The fake backend's warm compiles from its log: the lines, and each case's process ids."""
    warm = [line.split() for line in log.read_text().splitlines() if "cold=False" in line]
    by_case: dict[str, set[str]] = {}
    for case_id, _cold, _gc, pid, *_where in warm:
        by_case.setdefault(case_id, set()).add(pid)
    return warm, by_case


def test_a_device_worker_builds_in_children_then_loads(pytester, monkeypatch, tmp_path):
    """Through the real device worker (the fake backend's device): with two build processes
    each kernel's warm compile runs first in a child, then in the worker; the items pass."""
    log = tmp_path / "compiles.txt"
    result = _device_run(pytester, monkeypatch, log, "2")
    result.assert_outcomes(passed=3)
    warm, by_case = _warm_compiles(log)
    assert len(by_case) == 3 and all(len(pids) == 2 for pids in by_case.values()), warm
    assert len({pid for pids in by_case.values() for pid in pids}) >= 2


def test_in_process_isolation_builds_in_children_then_loads(pytester, monkeypatch, tmp_path):
    """``--tlbench-isolation=inprocess``: the session's own pool builds each kernel first in a
    child too, then loads it in the pytest process."""
    log = tmp_path / "compiles.txt"
    result = _device_run(pytester, monkeypatch, log, "2", "--tlbench-isolation=inprocess")
    result.assert_outcomes(passed=3)
    warm, by_case = _warm_compiles(log)
    assert len(by_case) == 3 and all(len(pids) == 2 for pids in by_case.values()), warm


def test_without_build_processes_the_worker_builds_alone(pytester, monkeypatch, tmp_path):
    log = tmp_path / "compiles.txt"
    result = _device_run(pytester, monkeypatch, log, "0")
    result.assert_outcomes(passed=3)
    pids = {line.split()[3] for line in log.read_text().splitlines() if "cold=False" in line}
    assert len(pids) == 1


def test_a_bad_build_process_count_is_a_usage_error(pytester, monkeypatch, tmp_path):
    result = _device_run(pytester, monkeypatch, tmp_path / "compiles.txt", "lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*TLBENCH_BUILD_PROCESSES='lots': give the number of build processes*"])
