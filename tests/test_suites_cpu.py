"""End to end on a machine with no accelerator: real tilelang, real nvcc, real JSON.

A small suite of the built-in GEMM (suites/gemm/body.py, declared with ``kernel_sweep`` as the
suites declare it) through the real plugin and both real backends: compile items are timed and
carry their plan (NVIDIA) or Z3 schedule (Ascend), device items skip with the missing
piece named, a config over Hopper's shared memory is skipped before compiling with the
bytes, and a config tilelang rejects becomes a failed item with tilelang's own words while
the rest still runs.
"""

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

ROOT = Path(__file__).resolve().parents[1]

SUITE = f"""
import dataclasses
import sys

sys.path.insert(0, {str(ROOT / "suites")!r})  # the built-in GEMM body and its declaration, as a suite beside them imports them
from tlbench.suites.gemm.sweep import GEMM, config, problem
from tlbench import kernel_sweep

SWEEP = dataclasses.replace(kernel_sweep(
    "gemm", **GEMM,
    sweep_name="cpu_e2e",
    sizes=[problem(1024, 1024, 1024)],
    configs=[
        config(128, 128, 32, 128, "auto", 2),
        config(128, 256, 64, 384, "auto", 3),   # tilelang: no valid warp partition for 12 warps
        config(128, 128, 1000, 128, "auto", 2),  # K=1024 is not a multiple of 1000: the body refuses
        config(256, 256, 64, 256, "auto", 4),   # 256 KiB of shared memory on Hopper
    ],
), skip_on=("budget",))  # let tilelang and the body themselves reject the 384-thread and the 1000-deep configs

def test_e2e(tlbench):
    tlbench.run()
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    import subprocess
    import sys

    workdir = tmp_path_factory.mktemp("e2e")
    (workdir / "test_e2e.py").write_text(SUITE)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "test_e2e.py", "--tlbench-backend=nvidia,ascend", "--tlbench-compile-rounds=1", "--tlbench-scope=full",
         "--tlbench-instructions=hardware",  # counts are not what this tests: no callgrind children
         "--benchmark-json=out.json", "-p", "no:cacheprovider", "-rs", "-v"],
        capture_output=True, text=True, cwd=workdir, timeout=1200,
    )
    return out, json.loads((workdir / "out.json").read_text())


def test_outcomes(run):
    out, _ = run
    assert out.returncode == 1, out.stdout[-4000:]  # failures: the configs the compiler refuses
    assert "No valid warp partition for T.gemm" in out.stdout
    assert "over the on-chip budget: shared.dyn needs 262144 B, limit 232448 B" in out.stdout
    assert "nvidia device timing unavailable: no CUDA GPU" in out.stdout
    assert "ascend device timing unavailable: torch_npu is not installed" in out.stdout


def test_compile_items_carry_plans_for_both_backends(run):
    _, data = run
    recs = {(b["extra_info"]["tlbench"]["backend"], b["extra_info"]["tlbench"]["case_id"]): b["extra_info"]["tlbench"] for b in data["benchmarks"]}
    nv = recs[("nvidia", "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2")]
    assert nv["kind"] == "compile" and nv["plan"]["pipeline"]["kind"] == "warp-specialized"
    assert [b["versions"] for b in nv["plan"]["buffers"]] == [2, 2]
    if shutil.which("nvcc"):
        assert nv["plan"]["features"]["built"] and nv["compile_phases_s"]["build"] > 0
    asc = recs[("ascend", "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2")]
    model = asc["plan"]["schedule_model"]
    assert model["loops"][0]["ii"] > 0 and "model" in model["unit"]
    assert asc["summary"]["median"] > 0
    # the Ascend side compiles the 384-thread and the 256x256x64 configs: threads mean nothing there
    assert ("ascend", "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t384-auto-s3") in recs
    assert ("ascend", "gemm-1024x1024x1024-f16-bm256-bn256-bk64-t256-auto-s4") in recs


def test_failed_and_skipped_items_are_in_the_json(run):
    _, data = run
    failed = {(f["backend"], f["kind"], f["case_id"]): f["error"] for f in data["tlbench"]["failed"]}
    assert "No valid warp partition for T.gemm" in failed[("nvidia", "compile", "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t384-auto-s3")]
    assert "K=1024 is not a multiple of block_K=1000" in failed[("ascend", "compile", "gemm-1024x1024x1024-f16-bm128-bn128-bk1000-t128-auto-s2")]
    assert set(failed) == {
        ("nvidia", "compile", "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t384-auto-s3"),
        ("nvidia", "compile", "gemm-1024x1024x1024-f16-bm128-bn128-bk1000-t128-auto-s2"),
        ("ascend", "compile", "gemm-1024x1024x1024-f16-bm128-bn128-bk1000-t128-auto-s2"),
    }
    reasons = {(s["backend"], s["kind"], s["case_id"]): s["reason"] for s in data["tlbench"]["skipped"]}
    assert reasons[("nvidia", "compile", "gemm-1024x1024x1024-f16-bm256-bn256-bk64-t256-auto-s4")].endswith(
        "needs 262144 B, limit 232448 B (A_shared + B_shared 4 x 65536 B) on nvidia")  # the scope, the buffers, the backend
    assert any(k[1] == "device" and k[2].endswith("-vendor") for k in reasons)
    info = data["machine_info"]
    assert info["tlbench"]["backends"]["nvidia"]["target"] == "cuda sm_90a"
    assert info["tlbench"]["backends"]["ascend"]["missing"]
