"""``--tlbench-profile FILE``: judge device records against this machine's calibrated profile too.

Contract: ``load_calibrated(path)`` returns the calibrated ``DeviceProfile`` (anything else is a
``pytest.UsageError`` saying what to do); ``calibrated_fields(record, profile, device)`` is a timed
device record's ``roofline_calibrated`` (% of the calibrated peak and copy bandwidth, or "other
device"); the datasheet ``roofline`` is never replaced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pytest

from ..core.device_profile import CALIBRATED, DeviceProfile
from ..results.report.roofline import peak_dtype

KEY = "roofline_calibrated"
HOW = "write one with: tlbench calibrate --backend NAME -o FILE.json"


def load_calibrated(path: str) -> DeviceProfile:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise pytest.UsageError(f"--tlbench-profile {path}: no such file ({HOW})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise pytest.UsageError(f"--tlbench-profile {path}: not a readable JSON profile ({exc}); {HOW}") from None
    try:
        profile = DeviceProfile.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise pytest.UsageError(f"--tlbench-profile {path}: not a device profile (bad or missing {exc}); {HOW}") from None
    if profile.origin != CALIBRATED:
        raise pytest.UsageError(f"--tlbench-profile {path}: origin is {profile.origin!r}, not 'calibrated' "
                                f"(datasheet profiles ship with the backends); {HOW}")
    if not profile.memory_bandwidth and not any(profile.peak_flops.values()):
        raise pytest.UsageError(f"--tlbench-profile {path}: it holds neither a copy bandwidth nor a peak; {HOW}")
    return profile


def calibrated_fields(record: Mapping[str, Any], profile: DeviceProfile | None, device: str | None) -> dict[str, Any]:
    if profile is None or record.get("kind") != "device":
        return {}
    throughput = record.get("throughput") or {}
    tflops, gbps = throughput.get("tflops"), throughput.get("gbps_compulsory")
    if not tflops and not gbps:
        return {}
    if device not in {profile.device, *profile.device_names}:
        return {KEY: {"status": "other device", "device": device, "profile_device": profile.device,
                      "reason": f"the calibrated profile is of {profile.device}, this record of {device or 'an unnamed device'}"}}
    dtype = peak_dtype(record)[0]
    peak = profile.peak_flops_for(dtype) if dtype else None  # calibrate measures fp16/bf16 matmuls only
    bandwidth = profile.memory_bandwidth
    return {KEY: {
        "status": "ok", "device": profile.device, "origin": profile.origin, "source": profile.source, "dtype": dtype,
        "peak_tflops": peak / 1e12 if peak else None,
        "pct_of_peak": 100.0 * tflops * 1e12 / peak if peak and tflops else None,
        "bandwidth_tbps": bandwidth / 1e12 if bandwidth else None,
        "pct_of_bandwidth": 100.0 * gbps * 1e9 / bandwidth if bandwidth and gbps else None,
    }}
