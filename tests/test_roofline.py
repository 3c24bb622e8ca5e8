"""% of peak and the roofline: datasheet profiles per device, never a guessed peak."""

import json
from pathlib import Path

import pytest

from tlbench.backends.ascend import profiles as ascend_profiles
from tlbench.backends.nvidia import profiles as nvidia_profiles
from tlbench.harness.core.device_profile import DeviceProfile, match_profile
from tlbench.harness.results.roofline import PEAK_UNKNOWN, annotate, format_pct

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
    assert format_pct(unknown) == PEAK_UNKNOWN
    on_950 = annotate(rec, match_profile(ascend_profiles.PROFILES, "Ascend950PR"))
    assert on_950["throughput"]["pct_of_peak"] is None
    assert "no published float16 peak" in on_950["roofline"]["reason"]


def test_compile_records_are_left_alone():
    rec = {"kind": "compile", "samples_s": [1.0]}
    assert annotate(rec, match_profile(nvidia_profiles.PROFILES, "NVIDIA H200")) == rec
