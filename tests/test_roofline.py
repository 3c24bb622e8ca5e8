"""% of peak and the roofline: datasheet profiles per device, never a guessed peak."""

import json
from pathlib import Path

import pytest

from tlbench.backends.ascend import profiles as ascend_profiles
from tlbench.backends.nvidia import profiles as nvidia_profiles
from tlbench.harness.core.device_profile import DeviceProfile, match_profile
from tlbench.harness.results.report.roofline import PEAK_UNKNOWN, annotate, format_pct

ROOT = Path(__file__).resolve().parents[1]


def _h200_record(case_id: str) -> dict:
    """A real H200 record as the measurement wrote it, before enrichment (the committed file
    is already enriched: its roofline fields are taken off here)."""
    doc = json.loads((ROOT / "results" / "h200-gemm-stages" / "stages.json").read_text())
    rec = next(b["extra_info"]["tlbench"] for b in doc["benchmarks"] if b["extra_info"]["tlbench"]["case_id"] == case_id)
    rec.pop("roofline", None)
    for key in ("pct_of_peak", "arithmetic_intensity"):
        rec["throughput"].pop(key, None)
    return rec


def test_h200_is_matched_by_the_name_cuda_reports_with_the_datasheet_dense_peak():
    profile = match_profile(nvidia_profiles.PROFILES, "NVIDIA H200")
    assert profile.device == "NVIDIA H200 SXM"
    assert profile.peak_flops_for("float16") == pytest.approx(989.5e12)
    assert profile.memory_bandwidth == pytest.approx(4.8e12)
    assert "datasheet" in profile.source and profile.origin == "datasheet"


@pytest.mark.parametrize("name", ["NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090", "", None])
def test_any_other_device_has_no_profile(name):
    assert match_profile(nvidia_profiles.PROFILES + ascend_profiles.PROFILES, name) is None


def test_every_shipped_profile_names_its_source_and_the_names_it_matches():
    for profile in nvidia_profiles.PROFILES + ascend_profiles.PROFILES:
        assert profile.source and profile.device_names
        assert DeviceProfile.from_dict(profile.to_dict()) == profile


def test_a_real_h200_record_gets_pct_of_peak_and_its_roofline_position():
    rec = _h200_record("gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3")
    profile = match_profile(nvidia_profiles.PROFILES, "NVIDIA H200")
    out = annotate(rec, profile)
    tflops = rec["throughput"]["tflops"]
    assert out["throughput"]["pct_of_peak"] == pytest.approx(100 * tflops / 989.5)
    # 8192^3 fp16: 2*8192^3 FLOPs over 3 * 8192^2 * 2 bytes
    assert out["throughput"]["arithmetic_intensity"] == pytest.approx(2 * 8192 / 6)
    roof = out["roofline"]
    assert roof["bound"] == "compute" and roof["ridge_flop_per_byte"] == pytest.approx(989.5 / 4.8)
    assert roof["attainable_tflops"] == pytest.approx(989.5)
    assert format_pct(out) == f"{100 * tflops / 989.5:.1f}% of peak"
    assert "pct_of_peak" not in rec["throughput"]  # the input is not modified


def test_unknown_device_and_unpublished_dtype_read_peak_unknown():
    rec = _h200_record("gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3")
    unknown = annotate(rec, None, "Some GPU")
    assert unknown["throughput"]["pct_of_peak"] is None and unknown["roofline"]["status"] == PEAK_UNKNOWN
    assert format_pct(unknown) == "peak unknown: no profile for this device"  # the words say why
    on_950 = annotate(rec, match_profile(ascend_profiles.PROFILES, "Ascend950PR"))
    assert on_950["throughput"]["pct_of_peak"] is None
    assert "no published float16 peak" in on_950["roofline"]["reason"]


def test_compile_records_are_left_alone():
    rec = {"kind": "compile", "samples_s": [1.0]}
    assert annotate(rec, match_profile(nvidia_profiles.PROFILES, "NVIDIA H200")) == rec


def _memory_bound_record(**throughput) -> dict:
    """A kernel_sweep elementwise kernel's device record: its problem names sizes, no dtype."""
    return {"kind": "device", "backend": "nvidia", "case_id": "scale-M8192-N8192-blk128", "problem": {"M": 8192, "N": 8192},
            "config": {"blk": 128}, "summary": {"median": 1e-4}, "throughput": throughput}


def test_a_kernel_that_names_no_dtype_is_read_against_the_bandwidth():
    """No dtype, so no FLOP peak: GB/s and % of the bandwidth all the same (it read
    '0.4 TFLOP/s (peak unknown)' with no bandwidth before)."""
    from tlbench.harness.results.report.summary import summary_lines

    h200 = match_profile(nvidia_profiles.PROFILES, "NVIDIA H200")
    both = annotate(_memory_bound_record(tflops=0.4, gbps_compulsory=3600.0), h200)
    assert both["throughput"]["pct_of_bandwidth"] == pytest.approx(75.0) and both["throughput"]["pct_of_peak"] is None
    assert both["roofline"]["status"] == PEAK_UNKNOWN and both["roofline"]["bandwidth_tbps"] == pytest.approx(4.8)
    assert both["roofline"]["bound"] is None  # FLOPs counted, no peak: the bound is not known
    text = "\n".join(summary_lines([both]))
    assert "3600 GB/s, 0.4 TFLOP/s, no vendor item timed, 75.0% of the datasheet memory bandwidth (4.80 TB/s), peak unknown" in text
    bytes_only = annotate(_memory_bound_record(tflops=0.0, gbps_compulsory=2400.0), h200)
    assert bytes_only["roofline"]["bound"] == "memory"
    text = "\n".join(summary_lines([bytes_only]))
    assert "2400 GB/s, no vendor item timed, 50.0% of the datasheet memory bandwidth (4.80 TB/s)" in text
    assert "TFLOP/s" not in text and "peak unknown" not in text


def test_a_gpu_no_datasheet_names_gives_the_bandwidth_it_reports_itself():
    """Memory clock x bus width x 2 from torch's device properties (no NVML), origin "device"."""
    from types import SimpleNamespace

    from tlbench.backends.nvidia.device_probe import memory_bandwidth

    info = {"accelerator": "NVIDIA Some GPU", **memory_bandwidth(SimpleNamespace(memory_clock_rate=2_619_000, memory_bus_width=6144))}
    assert info["memory_bandwidth_bytes_s"] == 2 * 6144 // 8 * 2_619_000 * 1000  # 4.02 TB/s
    assert memory_bandwidth(SimpleNamespace()) == {}  # a torch that reports neither: nothing, never a guess
    profile = nvidia_profiles.device_reported_profile(info)
    assert profile.origin == "device" and profile.peak_flops == {} and profile.memory_bandwidth == pytest.approx(4.023e12, rel=1e-3)
    assert "memory clock 2619 MHz x 6144-bit bus x 2" in profile.source
    assert nvidia_profiles.device_reported_profile({"accelerator": "X"}) is None
    rec = annotate(_memory_bound_record(tflops=0.0, gbps_compulsory=2011.5), profile, "NVIDIA Some GPU")
    assert rec["roofline"]["origin"] == "device" and rec["throughput"]["pct_of_bandwidth"] == pytest.approx(50.0, rel=1e-3)
    from tlbench.backends.nvidia.backend import NvidiaBackend

    assert NvidiaBackend.device_profile(None, info) == profile  # what the backend answers for such a GPU
    assert NvidiaBackend.device_profile(None, {**info, "accelerator": "NVIDIA H200"}).origin == "datasheet"
