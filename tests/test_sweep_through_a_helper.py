"""A suite whose ``SWEEP`` is built by a helper function of another module (``SWEEP =
make_sweep(...)``, ``kernel_sweep`` called inside the helper) runs its device items in a device
worker as it passes its preflight: the worker finds the family again in the suite that holds
the ``SWEEP``, not in the helper module that called ``kernel_sweep`` (which holds none: the
worker failed every item with ``declares no kernel ... in a SWEEP``).  Real pytest process,
real device workers; the device is tests/cpu_torch_backend.py (TEST ONLY)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

ROOT = Path(__file__).resolve().parents[1]

HELPER = '''
import torch
import tilelang.language as T

from tlbench import kernel_sweep


def doubled(N, tile):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile, threads=128) as bx:
            for i in T.Parallel(tile):
                B[bx * tile + i] = A[bx * tile + i] * 2
    return main


def make_sweep(name):
    return kernel_sweep(name, {"cuda": doubled}, sizes={"N": 4096}, axes={"tile": [512]},
                        inputs=lambda device, N: [torch.randn(N, device=device)], reference=lambda a: a * 2)
'''

SUITE = '''
from helper_decl import make_sweep

SWEEP = make_sweep("helper_built")


def test_helper_built(tlbench):
    tlbench.run()
'''


def test_a_sweep_built_by_a_helper_module_runs_in_the_device_worker(tmp_path):
    (tmp_path / "helper_decl.py").write_text(HELPER)
    (tmp_path / "test_helper_built.py").write_text(SUITE)
    sys.path.insert(0, str(ROOT / "tests"))
    from cpu_torch_backend import CONFTEST

    (tmp_path / "conftest.py").write_text(CONFTEST)
    out = tmp_path / "run.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "test_helper_built.py", "--benchmark-only", "--tlbench-backend=cputorch",
         "--tlbench-kind=device", "--tlbench-scope=smoke", "--tlbench-max-samples=5", f"--benchmark-json={out}",
         "-p", "no:cacheprovider", "-q", "-rfs"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600, env=env,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads(out.read_text())["benchmarks"]]
    assert [r["case_id"] for r in records] == ["helper_built-N4096-tile512"], records
    assert records[0]["check"]["ok"] is True
