"""A worker that cannot start is not started once per item: real pytest processes, the real
worker, and the named FakeBackend's TEST-ONLY injection (tests/fake_backend.py) that makes a
worker process exit 3 as its backend is built.

What is pinned: after ``Limits.startup_attempts`` failed starts in a row no further worker is
spawned in the session; every device item still fails (none is skipped or passed), the first
ones with the worker's own death, the rest at once with words that say the worker was not
started again, why, and what to do; pytest exits 1 by its own status.
"""

import json
import os
import subprocess
import sys

import fake_backend
from tlbench.harness.measure.worker_spec import Limits

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="start_suite",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (128, 64, 32, 16, 8, 4)],
    vendor=False,
)

def test_fake(tlbench):
    tlbench.run()
"""


def test_a_worker_that_dies_at_start_is_tried_a_bounded_number_of_times(tmp_path):
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_start_suite.py").write_text(SUITE)
    spawned = tmp_path / "spawned.txt"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-kind=device",
         "-rf", "--benchmark-json=out.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "TLBENCH_FAKE_WORKER_DIES_AT_START": str(spawned)},
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]
    starts = spawned.read_text().split()
    assert len(starts) == Limits.startup_attempts, starts  # not one per item (6)
    doc = json.loads((tmp_path / "out.json").read_text())
    failed = doc["tlbench"]["failed"]
    assert len(failed) == 6 and all(f["kind"] == "device" for f in failed), failed
    reasons = [f["error"] for f in failed]
    died = [r for r in reasons if "worker process died (exit status 3) during startup" in r]
    not_started = [r for r in reasons if "not started again" in r]
    assert died and len(died) + len(not_started) == 6, reasons
    assert all(f"failed to start {Limits.startup_attempts} times in a row" in r and "exit status 3" in r for r in not_started)
    assert "not started again" in run.stdout
