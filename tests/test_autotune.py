"""Autotune under pytest-xdist: the best-configs file is written once, by the controller, from
every worker's items (each worker used to write it from its own half: the last one won).
FakeBackend (tests/fake_backend.py) stands in for a device: this pins the plugin's logic."""

import json

import pytest

import fake_backend

CONFTEST = fake_backend.CONFTEST

SUITE = fake_backend.four_stage_suite("four_good")


def _run(pytester, *args):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_four=SUITE)
    return pytester.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only",
                              "--tlbench-autotune=best.json", *args)


def test_without_xdist_the_run_writes_its_best_config(pytester):
    result = _run(pytester)
    result.assert_outcomes(passed=4)
    (entry,) = json.loads((pytester.path / "best.json").read_text())["entries"]
    assert entry["candidates"] == 4 and entry["problem_id"] == "tile-1024x1024x1024-f16"


def test_under_xdist_the_controller_writes_from_every_workers_items(pytester):
    pytest.importorskip("xdist")
    result = _run(pytester, "-n", "2", "--tlbench-devices=0,1")
    result.assert_outcomes(passed=4)
    (entry,) = json.loads((pytester.path / "best.json").read_text())["entries"]
    assert entry["candidates"] == 4  # all four kernels, from both workers
    assert entry["device"].startswith("FakeAccelerator 1.0")
    result.stdout.fnmatch_lines(["*best fake tile-1024x1024x1024-f16: *-> best.json"])


BEST_SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="with_best",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(128, 128, 32, 128, "auto", 2)],
    best_configs="best_in.json",
    kinds=("device",),
)

def test_best(tlbench):
    tlbench.run()
"""


def _entry(device, block_k):
    config = {"block_M": 128, "block_N": 128, "block_K": block_k, "threads": 128, "loop_form": "auto", "num_stages": 3,
              "num_cores": None, "enable_offset": False, "group_m": None, "stage_output": False}
    return {"backend": "fake", "device": device, "problem_id": "tile-1024x1024x1024-f16", "problem": {}, "config": config,
            "case_id": "-", "median_s": 1e-3, "tflops": None, "vs_vendor": None, "candidates": 1}


def test_the_best_case_is_the_one_recorded_on_this_device(pytester):
    # another device's winner is listed first; the sweep must pick this device's (it used to be
    # called without the device, so the first entry won whatever ran it)
    entries = [_entry("SomeOtherAccelerator", 64), _entry("FakeAccelerator 1.0", 16)]
    (pytester.path / "best_in.json").write_text(json.dumps({"schema_version": 1, "entries": entries}))
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_best=BEST_SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*device-fake-tile-1024x1024x1024-f16-best-bm128-bn128-bk16-t128-auto-s3*"])
    assert "bk64" not in result.stdout.str()
