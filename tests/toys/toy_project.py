"""A toy plugin project in a temporary folder, run as a user would: real pytest and real
``tlbench`` processes over the toy backend and family (tests/toys), registered by a dist-info
of its own (no install).  ``make_toy_project(tmp_path, suite)`` writes it; ``toy_env`` is the
environment its processes run in; ``run_pytest`` / ``run_tlbench`` run them there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TOYS = Path(__file__).resolve().parent
ROOT = TOYS.parents[1]
ENTRY_POINTS = """[tlbench.backends]
toy = toy_backend:ToyBackend

[tlbench.traits]
toy = toy_backend:ToyBackend.traits

[tlbench.families]
vadd = toy_family:VADD
"""


def make_toy_project(folder: Path, suite: str) -> Path:
    dist = folder / "toyplugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    (folder / "test_vadd.py").write_text(suite)
    return folder


def toy_env(folder: Path) -> dict:
    path = os.pathsep.join([str(folder), str(TOYS), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def run_pytest(folder: Path, out: str, *options: str) -> subprocess.CompletedProcess:
    """The toy suite under pytest with the toy backend, writing ``out``."""
    cmd = [sys.executable, "-m", "pytest", "test_vadd.py", "-p", "no:cacheprovider", "--tlbench-backend=toy",
           "--benchmark-only", f"--benchmark-json={out}", *options]
    return subprocess.run(cmd, cwd=folder, env=toy_env(folder), capture_output=True, text=True, timeout=600)


def run_tlbench(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tlbench.harness.cli", *args], cwd=folder, env=toy_env(folder),
                          capture_output=True, text=True, timeout=300)
