"""What the plugin adds to each record and to commit_info, through pytester with the
FakeBackend (tests/fake_backend.py): the kernel-body hash and % of peak come from the
backend's optional methods, and a backend without them reads "peak unknown"."""

import json
from pathlib import Path

import pytest

import fake_backend
from tlbench.harness.core.device_profile import DeviceProfile
from tlbench.harness.pytest_plugin.commit_info import source_digest

CONFTEST = f"""
import sys
sys.path.insert(0, {str(Path(fake_backend.__file__).parent / "toys")!r})
sys.path.insert(0, {str(Path(fake_backend.__file__).parent)!r})
from fake_backend import FakeBackend
from tlbench.harness.core.device_profile import DeviceProfile

class ProfiledFakeBackend(FakeBackend):
    name = "fake_profiled"

    def device_profile(self, info):
        assert info["accelerator"].startswith("FakeAccelerator")
        return DeviceProfile("Fake 1.0", {{"float16": 1e12}}, 1e11, source="test profile")

    def kernel_body_hash(self, case):
        return None if case.kernel == "vendor" else "sha256:fake-" + case.kernel

def pytest_tlbench_register_backends(registry):
    registry.register("fake", FakeBackend)
    registry.register("fake_profiled", ProfiledFakeBackend)
"""

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="fake_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, 128, 32, 128, "auto", 2)], vendor=True)

def test_fake(tlbench):
    tlbench.run()
"""


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fake=SUITE)
    return pytester


def _records(pytester, backend):
    result = pytester.runpytest("-p", "no:cacheprovider", "--benchmark-json=out.json", f"--tlbench-backend={backend}")
    result.assert_outcomes(passed=3)
    doc = json.loads((pytester.path / "out.json").read_text())
    return doc, result, {b["extra_info"]["tlbench"]["case_id"] + "/" + b["extra_info"]["tlbench"]["kind"]: b["extra_info"]["tlbench"]
                 for b in doc["benchmarks"]}


def test_a_backend_with_a_profile_gives_pct_of_peak_and_kernel_hash(suite):
    _, result, recs = _records(suite, "fake_profiled")
    kernel = recs["tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2/device"]
    tflops = kernel["throughput"]["tflops"]
    assert kernel["throughput"]["pct_of_peak"] == pytest.approx(100 * tflops * 1e12 / 1e12)
    assert kernel["roofline"]["device"] == "Fake 1.0" and kernel["roofline"]["source"] == "test profile"
    assert kernel["kernel_hash"] == "sha256:fake-tile"
    assert recs["tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2/compile"]["kernel_hash"] == "sha256:fake-tile"
    vendor = recs["tile-1024x1024x1024-f16-vendor/device"]
    assert vendor["kernel_hash"] is None and vendor["throughput"]["pct_of_peak"] is not None
    # the summary block's best line (the per-item table, with the same cell, is behind -v)
    result.stdout.fnmatch_lines([f"*{tflops:.1f} TFLOP/s*{kernel['throughput']['pct_of_peak']:.1f}% of peak*"])


def test_a_backend_without_a_profile_reads_peak_unknown(suite):
    doc, result, recs = _records(suite, "fake")
    result.stdout.fnmatch_lines(["*TFLOP/s*peak unknown*"])
    kernel = recs["tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2/device"]
    assert kernel["throughput"]["pct_of_peak"] is None
    assert kernel["roofline"] == {"status": "peak unknown", "device": "FakeAccelerator 1.0", "reason": "no profile for this device"}
    assert kernel["kernel_hash"] is None
    info = doc["commit_info"]
    assert info["source_digest"] == source_digest(Path(__file__).resolve().parents[1])
    assert info["id_source"] == "git" or info["id_source"].startswith(("unknown", "TLBENCH_COMMIT"))


def _calibrated_file(path, device="FakeAccelerator 1.0", origin="calibrated"):
    profile = DeviceProfile(device, {"float16": 5e11}, 8e10, source="tlbench calibrate (test file)", origin=origin,
                            device_names=(device,))
    path.write_text(json.dumps(profile.to_dict()))
    return path


def test_a_calibrated_profile_adds_its_roofline_beside_the_datasheets(suite):
    """--tlbench-profile FILE: each device record also gets roofline_calibrated against the
    file's peak and copy bandwidth; the datasheet roofline and % of peak are unchanged."""
    _calibrated_file(suite.path / "cal.json")
    result = suite.runpytest("-p", "no:cacheprovider", "--benchmark-json=out.json", "--tlbench-backend=fake_profiled",
                             "--tlbench-profile=cal.json")
    result.assert_outcomes(passed=3)
    doc = json.loads((suite.path / "out.json").read_text())
    recs = {b["extra_info"]["tlbench"]["case_id"] + "/" + b["extra_info"]["tlbench"]["kind"]: b["extra_info"]["tlbench"]
            for b in doc["benchmarks"]}
    kernel = recs["tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2/device"]
    tflops = kernel["throughput"]["tflops"]
    assert kernel["roofline"]["source"] == "test profile"  # the datasheet one stays
    assert kernel["throughput"]["pct_of_peak"] == pytest.approx(100 * tflops)
    cal = kernel["roofline_calibrated"]
    assert cal["status"] == "ok" and cal["origin"] == "calibrated" and cal["bandwidth_tbps"] == pytest.approx(0.08)
    assert cal["pct_of_peak"] == pytest.approx(100 * tflops * 1e12 / 5e11)
    assert "roofline_calibrated" not in recs["tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2/compile"]


def test_a_calibrated_profile_of_another_device_is_named_not_used(suite):
    _calibrated_file(suite.path / "cal.json", device="Some Other GPU")
    result = suite.runpytest("-p", "no:cacheprovider", "--benchmark-json=out.json", "--tlbench-backend=fake",
                             "--tlbench-profile=cal.json")
    result.assert_outcomes(passed=3)
    doc = json.loads((suite.path / "out.json").read_text())
    cal = [b["extra_info"]["tlbench"]["roofline_calibrated"] for b in doc["benchmarks"]
           if b["extra_info"]["tlbench"]["kind"] == "device"]
    assert cal and all(c["status"] == "other device" and c["profile_device"] == "Some Other GPU" for c in cal)


@pytest.mark.parametrize("content, words", [
    (None, "no such file"),
    ("{not json", "not a readable JSON profile"),
    ("{}", "not a device profile"),
    ("datasheet", "origin is 'datasheet', not 'calibrated'"),
])
def test_a_bad_profile_file_is_a_usage_error_that_says_what_to_do(suite, content, words):
    path = suite.path / "cal.json"
    if content == "datasheet":
        _calibrated_file(path, origin="datasheet")
    elif content is not None:
        path.write_text(content)
    result = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-profile=cal.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--tlbench-profile cal.json: {words}*tlbench calibrate --backend NAME -o FILE.json*"])


def test_a_calibrated_profile_without_the_dtypes_peak_still_gives_the_copy_bandwidth():
    """calibrate times fp16/bf16 matmuls only: an fp32 memory-bound record still reads against
    the calibrated copy."""
    from tlbench.harness.pytest_plugin.calibrated import calibrated_fields

    profile = DeviceProfile("GPU X", {"float16": 5e14}, 4e12, source="test", origin="calibrated", device_names=("GPU X",))
    record = {"kind": "device", "problem": {"dtype": "float32"}, "throughput": {"tflops": 1.2, "gbps_compulsory": 3600.0}}
    cal = calibrated_fields(record, profile, "GPU X")["roofline_calibrated"]
    assert cal["status"] == "ok" and cal["peak_tflops"] is None and cal["pct_of_peak"] is None
    assert cal["bandwidth_tbps"] == pytest.approx(4.0) and cal["pct_of_bandwidth"] == pytest.approx(90.0)
