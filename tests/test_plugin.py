"""The pytest plugin's own behaviour, through pytester, with the FakeBackend (tests/fake_backend.py).

What is pinned: --tlbench-backend validation (the old --backend spelling is gone), item ids, samples reaching pytest-benchmark's stats
unchanged (so its compare tools see device time), failed and skipped items kept in the
JSON with the compiler's words / the reason, over-budget configs skipped before compiling,
machine_info, and that pytest-benchmark's own ``compare`` reads the file.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fake_backend

CONFTEST = f"""
import sys
sys.path.insert(0, {str(Path(fake_backend.__file__).parent / "toys")!r})
sys.path.insert(0, {str(Path(fake_backend.__file__).parent)!r})
from fake_backend import FakeBackend, UnavailableFakeBackend

def pytest_tlbench_register_backends(registry):
    registry.register("fake", FakeBackend)
    registry.register("fake_gone", UnavailableFakeBackend)
"""

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="fake_suite",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[
        TileConfig(128, 128, 32, 128, "auto", 2),      # fine
        TileConfig(128, 128, 7, 128, "auto", 2),       # the fake compiler rejects block_K=7
        TileConfig(256, 256, 64, 256, "auto", 4),      # 256 KiB of shared memory: over budget
        TileConfig(128, 8, 32, 128, "auto", 2),        # wrong result on the fake device
    ],
    vendor=True,
)

def test_fake(tlbench):
    tlbench.run()
"""


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fake=SUITE)
    return pytester


def _run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--benchmark-json=out.json", *args)


def _json(pytester):
    return json.loads((pytester.path / "out.json").read_text())


def test_unknown_backend_is_a_usage_error_listing_valid_names(suite):
    result = suite.runpytest("--tlbench-backend=foo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tlbench-backend=foo: unknown backend foo; valid choices: ascend, fake, fake_gone, nvidia, auto"])


def test_the_old_backend_spelling_is_not_an_option(suite):
    result = _run(suite, "--backend=fake", "--tlbench-kind=compile", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --backend=fake*"])


def test_items_ids_outcomes_and_json(suite):
    result = _run(suite, "--tlbench-backend=fake", "-v")
    result.assert_outcomes(passed=4, failed=3, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*test_fake[[]compile-fake-tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2[]] PASSED*",
            "*test_fake[[]device-fake-tile-1024x1024x1024-f16-vendor[]] PASSED*",
        ]
    )
    data = _json(suite)
    timed = {b["param"]: b for b in data["benchmarks"]}
    assert set(timed) == {
        "compile-fake-tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2",
        "compile-fake-tile-1024x1024x1024-f16-bm128-bn8-bk32-t128-auto-s2",
        "device-fake-tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2",
        "device-fake-tile-1024x1024x1024-f16-vendor",
    }
    device = timed["device-fake-tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"]
    # pytest-benchmark's own stats are the backend's samples, not host time
    rec = device["extra_info"]["tlbench"]
    assert device["stats"]["rounds"] == len(rec["samples_s"]) and set(rec["samples_s"]) == set(fake_backend.DEVICE_SAMPLES_S)
    assert device["stats"]["median"] == pytest.approx(sorted(fake_backend.DEVICE_SAMPLES_S)[2])
    assert device["stats"]["min"] == pytest.approx(min(fake_backend.DEVICE_SAMPLES_S))
    assert rec["method"] == "fake-timer"
    assert rec["measurement"]["criterion"]["name"] == "median-ci" and rec["summary"]["status"] in ("clean", "CAPPED")
    assert rec["throughput"]["tflops"] == pytest.approx(2 * 1024**3 / 1.0e-3 / 1e12)
    assert rec["check"]["ok"] is True and rec["plan"]["backend"] == "fake"
    assert device["params"] == {"tlbench_item": device["param"]}
    compile_item = timed["compile-fake-tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"]
    assert compile_item["stats"]["median"] == pytest.approx(fake_backend.COMPILE_SECONDS)

    failed = {f["case_id"] + "/" + f["kind"]: f for f in data["tlbench"]["failed"]}
    assert failed["tile-1024x1024x1024-f16-bm128-bn128-bk7-t128-auto-s2/compile"]["error"].startswith("FakeCompilerError: block_K=7")
    for kind in ("compile", "device"):  # the compiler's traceback, from the worker that compiled it (device: its compile pool)
        assert re.search(r'fake_backend\.py", line \d+, in compile\n', failed[f"tile-1024x1024x1024-f16-bm128-bn128-bk7-t128-auto-s2/{kind}"]["traceback"])
    assert "traceback" not in failed["tile-1024x1024x1024-f16-bm128-bn8-bk32-t128-auto-s2/device"]  # a wrong result raised nothing
    assert failed["tile-1024x1024x1024-f16-bm128-bn8-bk32-t128-auto-s2/device"]["stage"] == "check"
    skipped = {s["case_id"] + "/" + s["kind"]: s["reason"] for s in data["tlbench"]["skipped"]}
    assert skipped["tile-1024x1024x1024-f16-bm256-bn256-bk64-t256-auto-s4/compile"] == (
        "over the on-chip budget: shared.dyn needs 262144 B, limit 232448 B (A_shared + B_shared 4 x 65536 B) on fake"
    )
    assert data["machine_info"]["tlbench"]["backends"]["fake"]["accelerator"] == "FakeAccelerator 1.0"
    assert data["tlbench"]["backends"] == ["fake"]


def test_failures_carry_the_compiler_words_and_the_rest_still_runs(suite):
    result = _run(suite, "--tlbench-backend=fake")
    result.stdout.fnmatch_lines(["*[[]compile[]]: FakeCompilerError: block_K=7 is not a legal tile*"])
    result.stdout.fnmatch_lines(["*[[]check[]]: wrong result: 3 of 10 elements differ*"])
    result.stdout.fnmatch_lines(["*= tlbench summary*", "fake · tile-1024x1024x1024-f16", "*flags: 3 failed*"])
    verbose = _run(suite, "--tlbench-backend=fake", "-v")
    verbose.stdout.fnmatch_lines(["*= tlbench: every item =*", "*config*stages*median*rate*x vendor*plan*", "*FAILED [[]compile[]]: FakeCompilerError*"])


def test_device_items_skip_with_the_backends_reason(suite):
    result = _run(suite, "--tlbench-backend=fake_gone", "--tlbench-kind=device", "-rs")
    result.stdout.fnmatch_lines(["*fake_gone device timing unavailable: FakeAccelerator not present*"])
    assert result.parseoutcomes().get("passed", 0) == 0


def test_kind_and_scope_options_select_items(suite):
    result = _run(suite, "--tlbench-backend=fake", "--tlbench-kind=compile", "--collect-only", "-q")
    lines = [ln for ln in result.stdout.lines if "test_fake[" in ln]
    assert lines and all("[compile-" in ln for ln in lines)


def test_benchmark_only_keeps_our_items(suite):
    result = _run(suite, "--tlbench-backend=fake", "--benchmark-only")
    result.assert_outcomes(passed=4, failed=3, skipped=2)


def test_pytest_benchmark_compare_reads_our_file(suite):
    _run(suite, "--tlbench-backend=fake")
    exe = shutil.which("pytest-benchmark")
    cmd = [exe] if exe else [sys.executable, "-m", "pytest_benchmark.cli"]
    out = subprocess.run([*cmd, "compare", str(suite.path / "out.json")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "device-fake-tile-1024x1024x1024-f16-vendor" in out.stdout


def test_records_round_trip_through_json(suite):
    from tlbench.harness.core.record import records_of

    _run(suite, "--tlbench-backend=fake")
    records = records_of(_json(suite))
    assert {(r["kind"], r["case_id"]) for r in records} == {
        ("compile", "tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"),
        ("compile", "tile-1024x1024x1024-f16-bm128-bn8-bk32-t128-auto-s2"),
        ("device", "tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"),
        ("device", "tile-1024x1024x1024-f16-vendor"),
    }
    assert all(r["schema_version"] == 1 for r in records)


def test_xdist_workers_are_pinned_and_the_controller_writes_one_merged_json(suite):
    pytest.importorskip("xdist")
    result = _run(suite, "--tlbench-backend=fake", "--benchmark-only", "-n", "2", "--tlbench-devices=0,1")
    result.assert_outcomes(passed=5, failed=3, skipped=2)  # the vendor item once per GPU
    data = _json(suite)
    assert len(data["benchmarks"]) == 5  # every timed item, from both workers
    vendors = [b for b in data["benchmarks"] if b["extra_info"]["tlbench"]["case_id"] == "tile-1024x1024x1024-f16-vendor"]
    assert sorted(b["param"] for b in vendors) == [
        "device-fake-tile-1024x1024x1024-f16-vendor-gpu0",
        "device-fake-tile-1024x1024x1024-f16-vendor-gpu1",
    ]
    assert sorted(b["extra_info"]["tlbench"]["device_uuid"] for b in vendors) == ["FAKE-0", "FAKE-1"]  # each GPU its own
    device = vendors[0]
    assert device["stats"]["rounds"] == len(device["extra_info"]["tlbench"]["samples_s"]) > 0  # measured in the worker, not disabled
    assert device["extra_info"]["tlbench"]["method"] == "fake-timer"
    assert {f["case_id"] for f in data["tlbench"]["failed"]} == {
        "tile-1024x1024x1024-f16-bm128-bn128-bk7-t128-auto-s2",
        "tile-1024x1024x1024-f16-bm128-bn8-bk32-t128-auto-s2",
    }
    assert len(data["tlbench"]["skipped"]) == 2
    accelerators = data["machine_info"]["tlbench"]["backends"]["fake"]["accelerators"]
    assert accelerators == ["FakeAccelerator 1.0 #0", "FakeAccelerator 1.0 #1"]  # one worker per device
    result.stdout.fnmatch_lines(["*tlbench (merged from 2 workers)*"])
    assert data["machine_info"]["tlbench"]["schema_version"] == 1


def test_the_merged_xdist_file_is_read_by_every_tlbench_command_and_pytest_benchmark(suite):
    pytest.importorskip("xdist")
    _run(suite, "--tlbench-backend=fake", "--benchmark-only", "-n", "2", "--tlbench-devices=0,1")
    merged = str(suite.path / "out.json")
    exe = shutil.which("pytest-benchmark")
    bench_cli = [exe] if exe else [sys.executable, "-m", "pytest_benchmark.cli"]
    tlbench = [sys.executable, "-m", "tlbench.harness.cli"]
    for cmd in (
        [*tlbench, "report", merged],
        [*tlbench, "report", "--stages", merged],
        [*tlbench, "compare", merged, merged],
        [*bench_cli, "compare", merged],
    ):
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=suite.path)
        assert out.returncode == 0, f"{' '.join(cmd[1:])}: rc {out.returncode}\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
        assert "schema_version" not in out.stderr


ALL_OVER_BUDGET = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="hopeless",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(256, 256, 64, 256, "auto", s) for s in (4, 5, 6)],
)

def test_hopeless(tlbench):
    tlbench.run()
"""


def test_all_infeasible_sweep_ends_with_the_diagnostic_and_exit_0(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_hopeless=ALL_OVER_BUDGET)
    result = pytester.runpytest("--tlbench-backend=fake", "--benchmark-only", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=6)
    result.stdout.fnmatch_lines(
        ["*[[]tlbench[]] fake tile-1024x1024x1024-f16: 3 configs requested, 0 legal (rejected: budget 3) -> all infeasible*"]
    )
