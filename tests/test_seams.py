"""The two seams, proved from tests/ alone (nothing here or in tests/toys/ is under harness/):

- a toy backend (tests/toys/toy_backend.py: its own 4 KiB ``toy.sram``, its own ``lanes``
  rejection rule, its own traits) sweeps, prunes, records and compares;
- a toy kernel family (tests/toys/toy_family.py: vector add) runs through the real plugin.

Both register the way a third-party package would: through its distribution's entry points
(``tlbench.backends``, ``tlbench.traits``, ``tlbench.families``), here a dist-info folder
on ``PYTHONPATH``.  Every run is a real pytest process and a real ``tlbench`` process.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "toys"))
from toy_project import make_toy_project, run_pytest, run_tlbench  # noqa: E402

SUITE = """
from tlbench.harness.core.sweep import Sweep
from toy_family import VaddConfig, VaddProblem

SWEEP = Sweep(
    name="vadd",
    problems=[VaddProblem(4096)],
    configs=[
        VaddConfig(256),                 # 3 KiB of toy.sram
        VaddConfig(128),
        VaddConfig(128, num_stages=2),
        VaddConfig(256, num_stages=2),   # 6 KiB: over the toy's 4 KiB
        VaddConfig(1000),                # 4096 is not a multiple of 1000
        VaddConfig(256, threads=96),     # the toy's own rule: 64-lane vectors
    ],
    vendor=True,
    kinds=("device",),
    skip_on=("divisibility", "lanes", "budget"),
)

def test_vadd(tlbench):
    tlbench.run()
"""


@pytest.fixture
def toy_dir(tmp_path):
    return make_toy_project(tmp_path, SUITE)


def _pytest(toy_dir: Path, out: str, *extra: str) -> subprocess.CompletedProcess:
    return run_pytest(toy_dir, out, "--tlbench-max-seconds=0.2", "-rs", *extra)


def _tlbench(toy_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return run_tlbench(toy_dir, *args)


def test_toy_backend_and_family_sweep_prune_record_and_compare(toy_dir):
    first = _pytest(toy_dir, "a.json", "--tlbench-autotune=best.json", "-v")  # -v: the per-item table too
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    out = first.stdout
    # pruned before anything ran, each by whose knowledge it is
    assert "toy vadd-4096-f32: 6 configs requested, 3 legal (rejected: budget 1, divisibility 1, lanes 1)" in out
    assert "pruned (lanes): threads=96 does not fill 64-lane vectors" in out
    assert "over the on-chip budget: toy.sram needs 6144 B, limit 4096 B" in out
    assert "pruned (divisibility): n=4096 is not a multiple of block=1000" in out
    assert "toy sram 3072 B" in out  # the toy's own plan summary in the tlbench table (-v)
    doc = json.loads((toy_dir / "a.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert sorted(r["case_id"] for r in records) == [
        "vadd-4096-f32-b128-t64-auto-s1", "vadd-4096-f32-b128-t64-auto-s2", "vadd-4096-f32-b256-t64-auto-s1",
        "vadd-4096-f32-vendor",
    ]
    assert {r["family"] for r in records} == {"vadd"} and all(r["check"]["ok"] for r in records)
    assert doc["machine_info"]["toy_version"] == "1"  # the toy's machine-info key
    (best,) = json.loads((toy_dir / "best.json").read_text())["entries"]
    assert best["problem_id"] == "vadd-4096-f32" and best["candidates"] == 3

    second = _pytest(toy_dir, "b.json")
    assert second.returncode == 0, second.stdout[-3000:]
    compared = _tlbench(toy_dir, "compare", "a.json", "b.json")
    assert compared.returncode in (0, 1), compared.stderr  # 1 = a timing moved; 2 would be unusable input
    assert "| device toy | vadd-4096-f32 [" in compared.stdout  # the problem heads its group ...
    for config in ("b128-t64-auto-s1", "b256-t64-auto-s1", "vendor"):  # ... each config is a row under it
        assert any(line.startswith("  ") and f" {config} " in line for line in compared.stdout.splitlines()), config
    assert "toy, host CPU (toy)" in compared.stdout  # the testbed, read through the toy's traits
    report = _tlbench(toy_dir, "report", "a.json")
    assert report.returncode == 0 and "toy sram 3072 B" in report.stdout
