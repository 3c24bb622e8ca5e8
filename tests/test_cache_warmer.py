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
    pool = CompilePool(workers=2, warmer=warmer)
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


def test_a_small_host_gets_no_children():
    assert processes(2) == 0 and processes(3) == 0 and processes(4) == 4 and processes(16) == 16
