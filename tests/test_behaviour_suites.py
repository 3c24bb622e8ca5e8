"""The behaviours the conformance set proved, each kept on CPU by a small suite of our own.

tests/behaviour_suites/ holds one module a behaviour (kernel, suite and test in one file; its
docstring says what it shows): integer and bool outputs, fp8 inputs and output, all sizes
``T.dynamic``, global scratch between two kernels of one PrimFunc, grouped heads, inputs laid
out by the tile, and a vendor call of several launches.  The modules are not named
``test_*.py``, so ``pytest tests`` does not collect them as suites; they run here, named.

- ``tlbench check`` passes every one (the preflight: bodies traced, the callables run on CPU
  torch at the smoke sizes, each output's rule rejecting its poisoned output).
- One real pytest process runs all of them at the smoke sizes: the compile items on NVIDIA
  and Ascend (real lowering, nvcc where present), and the device items on the TEST-ONLY CPU
  torch device (tests/cpu_torch_backend.py: the real family path makes the inputs, allocates
  and poisons the outputs, picks each output's rule, calls the vendor and judges; its "kernel"
  writes the reference's answer, so a kernel item's check shows what tlbench did around the
  kernel - which rule, which dtypes, how many elements - never that the kernel is right).
  NVIDIA and Ascend device items skip here (no GPU, no NPU).  The input seed is fixed, so
  the fp8 output's error against its fp32 reference is the same every run.
- Each test then reads the records of its behaviour (``benchmarks[*].extra_info.tlbench``,
  and the failed and skipped items under the file's ``tlbench`` key).  No number asserted
  here is one the suite wrote into its record itself: rules are the ones tlbench chose or
  named, grids the compiler's, element counts the outputs tlbench allocated.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("tilelang")

from tlbench.harness.cli import main as tlbench_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = Path(__file__).resolve().parent / "behaviour_suites"
MODULES = ("int_bool_outputs", "fp8_in_out", "dynamic_rows", "scratch_two_kernels", "grouped_heads", "tile_offsets",
           "vendor_per_group")
FILES = [str(FOLDER / f"{name}.py") for name in MODULES]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("behaviours") / "run.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *FILES, "--benchmark-only", "-p", "cpu_torch_backend",
         "--tlbench-backend=nvidia,ascend,cputorch", "--tlbench-kind=all", "--tlbench-scope=smoke",
         "--tlbench-compile-rounds=1", "--tlbench-max-samples=5", "--tlbench-seed=7", f"--benchmark-json={out}", "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=ROOT, timeout=900, env=env,
    )
    data = json.loads(out.read_text()) if out.is_file() else {}
    return done, data


def _records(run, sweep: str, backend: str, kind: str) -> list[dict]:
    done, data = run
    assert data, done.stdout[-3000:] + done.stderr[-2000:]
    return [r for r in (b["extra_info"]["tlbench"] for b in data["benchmarks"])
            if r["case_id"].startswith(f"{sweep}-") and r["backend"] == backend and r["kind"] == kind]


def _one(records: list[dict]) -> dict:
    assert len(records) == 1, [r["case_id"] for r in records]
    return records[0]


def _skips(run, sweep: str) -> dict[tuple[str, str, str], str]:
    return {(s["backend"], s["kind"], s["case_id"]): s["reason"]
            for s in run[1]["tlbench"]["skipped"] if s["case_id"].startswith(f"{sweep}-")}


def test_every_behaviour_suite_passes_tlbench_check(capsys):
    code = tlbench_main(["check", *FILES, "--backend", "nvidia,ascend", "--scope", "smoke"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0, lines
    assert lines[-1].startswith(f"tlbench check: {len(FILES)} suite(s), ") and " 0 failing their preflight" in lines[-1], lines


def test_the_run_passes_with_no_failed_item(run):
    done, data = run
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert data["tlbench"]["failed"] == []
    for skip in data["tlbench"]["skipped"]:  # only what this machine lacks, and the CUDA-only bodies on Ascend
        assert skip["kind"] == "device" and skip["backend"] in ("nvidia", "ascend") or "no body for ascend" in skip["reason"], skip


def test_int32_and_bool_outputs_are_judged_exactly_beside_a_float_one(run):
    device = _one(_records(run, "behaviour_int_bool", "cputorch", "device"))
    check = device["check"]
    assert check["rule"] == "bucket: exact(); positive: exact(); square: tolerance(rtol=0.01, atol=0.01)", check
    assert check["ok"] and check["checked"] and check["total"] == 3 * device["problem"]["N"], check
    nvidia = _one(_records(run, "behaviour_int_bool", "nvidia", "compile"))
    assert nvidia["plan"]["features"]["grid_dims"] == [2048 // 256, 1, 1]
    ascend = _one(_records(run, "behaviour_int_bool", "ascend", "compile"))  # no bool there: int32 and float32
    assert {b["name"]: b["dtype"] for b in ascend["plan"]["buffers"]} == {"v": "float32", "b": "int32", "s": "float32"}


def test_fp8_inputs_and_an_fp8_output_judged_by_steps(run):
    device = _one(_records(run, "behaviour_fp8", "cputorch", "device"))
    assert device["input_dtypes"] == ["float8_e4m3fn", "float8_e5m2"]
    check = device["check"]
    assert check["rule"] == "prod: steps(1)" and check["ok"] and check["total"] == 4096, check
    # the output holds e4m3 values: against the fp32 reference it is off by e4m3's rounding (an
    # fp16 or fp32 output written with the same answer would be off by far less)
    assert check["max_abs_err"] > 0.05, check
    nvidia = _one(_records(run, "behaviour_fp8", "nvidia", "compile"))
    assert nvidia["plan"]["buffers"] == [{"name": "staged", "scope": "shared.dyn", "shape": [512], "dtype": "float8_e4m3",
                                          "versions": 1, "bytes": 512}]  # one byte an element
    assert any("no body for ascend" in reason for reason in _skips(run, "behaviour_fp8").values())


def test_a_factory_of_dynamic_sizes_binds_each_problem(run):
    problems = [(256, 128), (64, 384)]
    for backend in ("nvidia", "ascend"):
        records = {(r["problem"]["rows"], r["problem"]["cols"]): r for r in _records(run, "behaviour_dynamic", backend, "compile")}
        assert set(records) == set(problems), (backend, list(records))
        for (rows, cols), record in records.items():
            features = record["plan"]["features"]
            assert features["symbolic"] == {"rows": rows, "cols": cols}, (backend, features)
            tiles = [math.ceil(cols / 128), math.ceil(rows / 32)]
            assert features["grid"] == tiles[0] * tiles[1], (backend, features)
            if backend == "nvidia":
                assert features["grid_dims"] == [*tiles, 1], features
        # one kernel per config: both problems lowered to the same source
        assert len({r["plan"]["features"]["source_sha256"] for r in records.values()}) == 1, backend
        assert len({r["kernel_hash"] for r in records.values()}) == 1, backend
    device = {(r["problem"]["rows"], r["problem"]["cols"]): r["check"] for r in _records(run, "behaviour_dynamic", "cputorch", "device")}
    assert set(device) == set(problems)
    for (rows, cols), check in device.items():  # the output tlbench allocated is each problem's own size
        assert check["ok"] and check["total"] == rows * cols, check


def test_global_scratch_between_two_kernels_of_one_primfunc(run):
    nvidia = _one(_records(run, "behaviour_scratch", "nvidia", "compile"))
    assert nvidia["plan"]["features"]["kernels"] == [
        {"name": "main_kernel", "grid_dims": [8192 // 1024, 1, 1], "threads": 128},  # the partial sums, one block a chunk
        {"name": "main_kernel_1", "grid_dims": [1, 1, 1], "threads": 128},  # their combine
    ]
    check = _one(_records(run, "behaviour_scratch", "cputorch", "device"))["check"]
    assert check["rule"] == "total: tolerance(rtol=0.0001, atol=0.001)" and check["ok"], check
    assert check["total"] == 1  # the scratch is no output: only the total was allocated and judged
    assert any("no body for ascend" in reason for reason in _skips(run, "behaviour_scratch").values())


def test_grouped_heads_named_by_their_own_size_words(run):
    problems = {(2, 8, 2, 64), (1, 4, 1, 64)}
    for backend in ("nvidia", "ascend", "cputorch"):
        kind = "device" if backend == "cputorch" else "compile"
        records = _records(run, "behaviour_gqa", backend, kind)
        assert {(r["problem"]["batch"], r["problem"]["heads"], r["problem"]["groups"], r["problem"]["dim"]) for r in records} == problems
        assert {r["case_id"] for r in records} == {f"behaviour_gqa-batch{b}-heads{h}-groups{g}-dim{d}-default" for b, h, g, d in problems}
        for record in records:
            p = record["problem"]
            if backend == "nvidia":
                assert record["plan"]["features"]["grid_dims"] == [p["heads"], p["batch"], 1]
            elif backend == "ascend":
                assert record["plan"]["features"]["grid"] == p["batch"] * p["heads"]
            else:
                assert record["check"]["ok"] and record["check"]["total"] == p["batch"] * p["heads"] * p["dim"], record["check"]


def test_inputs_laid_out_by_the_tile_are_made_for_each_tile(run):
    for backend in ("nvidia", "ascend"):
        grids = {r["config"]["block_M"]: r["plan"]["features"]["grid"] for r in _records(run, "behaviour_tile_inputs", backend, "compile")}
        assert grids == {16: 256 // 16, 32: 256 // 32}, backend
    device = {r["config"]["block_M"]: r["check"] for r in _records(run, "behaviour_tile_inputs", "cputorch", "device")}
    # each tile's items got offsets of their own shape ((M // block_M, N)): made once for the
    # other tile, they would not fit this config's PrimFunc, which the CPU torch stand-in binds
    # its arguments to as a launch does ("parameter offsets dimension 0 is 8; inputs() gave 16")
    assert set(device) == {16, 32}
    for check in device.values():
        assert check["ok"] and check["total"] == 256 * 128, check


def test_a_vendor_call_of_several_launches_writes_every_group(run):
    vendor = _one([r for r in _records(run, "behaviour_vendor_loop", "cputorch", "device") if r["case_id"].endswith("-vendor")])
    check = vendor["check"]
    # every group's launch wrote its slice of the output tlbench allocated and poisoned
    assert check["checked"] and check["ok"] and check["total"] == 4 * 16 * 128 and check["non_finite"] == 0, check
    assert "vendor item: torch.mul per group (4 launches a call)" in vendor["notes"]
    for backend in ("nvidia", "ascend"):
        assert _one(_records(run, "behaviour_vendor_loop", backend, "compile"))["plan"]["features"]["grid_dims"][0] == 4
    skips = _skips(run, "behaviour_vendor_loop")
    assert ("nvidia", "device", "behaviour_vendor_loop-groups4-rows16-N128-vendor") in skips  # a GPU host times it
