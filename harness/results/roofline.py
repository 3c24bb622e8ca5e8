"""% of peak and the roofline position of one device record.

Contract: ``roofline_fields(record, profile)`` returns what to add to a timed device record,
computed only from the record's own throughput (``tflops`` and ``gbps_compulsory``, which
the kernel family derived from the problem's FLOPs and compulsory bytes) and the profile:
- ``throughput.arithmetic_intensity``: FLOPs / byte moved (= tflops / gbps_compulsory);
- ``throughput.pct_of_peak``: achieved FLOP/s over the profile's dense peak for the
  problem's dtype, in percent; None when the peak is unknown;
- ``throughput.pct_of_bandwidth``: achieved bytes/s (the family's compulsory bytes) over the
  profile's memory bandwidth, in percent, wherever the kernel moves bytes and the bandwidth is
  known - with or without a FLOP peak (a kernel that names no dtype, or counts no FLOPs);
- ``roofline``: device, origin (datasheet / device / calibrated), source, bandwidth TB/s and,
  with a peak, peak TFLOP/s, ridge point, ``bound`` (compute or memory at this intensity), the
  attainable TFLOP/s and % of it; without a peak ``status`` is "peak unknown" with the
  reason, and a kernel that counts bytes and no FLOPs is ``bound`` "memory".
``annotate(record, profile)`` returns a copy of the record with those fields.  Compile
records and records without throughput are returned unchanged.  Pure; never guesses.
"""

from __future__ import annotations

from typing import Any, Mapping

from tlbench.harness.core.device_profile import DeviceProfile

PEAK_UNKNOWN = "peak unknown"


def _dtype(record: Mapping[str, Any]) -> str | None:
    problem = record.get("problem") or {}
    return problem.get("dtype")


def roofline_fields(record: Mapping[str, Any], profile: DeviceProfile | None, device: str | None = None) -> dict[str, Any]:
    throughput = dict(record.get("throughput") or {})
    tflops, gbps = throughput.get("tflops"), throughput.get("gbps_compulsory")
    if not tflops and not gbps:
        return {}
    bandwidth = profile.memory_bandwidth if profile is not None else None
    if tflops and gbps:
        throughput["arithmetic_intensity"] = tflops * 1e12 / (gbps * 1e9)
    intensity = throughput.get("arithmetic_intensity")
    dtype = _dtype(record)
    peak = profile.peak_flops_for(dtype) if (profile and dtype) else None
    if tflops:
        throughput["pct_of_peak"] = 100.0 * tflops * 1e12 / peak if peak else None
    if gbps:
        throughput["pct_of_bandwidth"] = 100.0 * gbps * 1e9 / bandwidth if bandwidth else None
    if profile is None:
        return {"throughput": throughput,
                "roofline": {"status": PEAK_UNKNOWN, "device": device, "reason": "no profile for this device"}}
    roof: dict[str, Any] = {
        "status": "ok" if peak else PEAK_UNKNOWN,
        "device": profile.device,
        "origin": profile.origin,
        "source": profile.source,
        "bandwidth_tbps": bandwidth / 1e12 if bandwidth else None,
    }
    if peak is None:
        why = f"no published {dtype} peak for {profile.device}" if dtype else "the problem names no dtype to read a peak for"
        # bytes and no FLOPs: the kernel is read against the bandwidth alone
        roof.update({"reason": why, "bound": "memory" if gbps and not tflops and bandwidth else None})
        return {"throughput": throughput, "roofline": roof}
    roof.update({"dtype": dtype, "peak_tflops": peak / 1e12})
    if bandwidth and intensity is not None:
        ridge = peak / bandwidth
        attainable = min(peak, intensity * bandwidth)
        roof.update({
            "ridge_flop_per_byte": ridge,
            "bound": "compute" if intensity >= ridge else "memory",
            "attainable_tflops": attainable / 1e12,
            "pct_of_attainable": 100.0 * tflops * 1e12 / attainable,
        })
    else:
        roof.update({"bound": "memory" if gbps and not tflops and bandwidth else None,
                     "attainable_tflops": None, "pct_of_attainable": None})
    return {"throughput": throughput, "roofline": roof}


def annotate(record: Mapping[str, Any], profile: DeviceProfile | None, device: str | None = None) -> dict[str, Any]:
    out = dict(record)
    if out.get("kind") != "device":
        return out
    out.update(roofline_fields(record, profile, device))
    return out


def format_pct(record: Mapping[str, Any]) -> str:
    """``71.3% of peak`` / ``peak unknown`` / '' for a record without device throughput."""
    throughput = record.get("throughput") or {}
    if "pct_of_peak" not in throughput:
        return ""
    pct = throughput["pct_of_peak"]
    return PEAK_UNKNOWN if pct is None else f"{pct:.1f}% of peak"
