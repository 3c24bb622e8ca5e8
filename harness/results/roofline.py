"""% of peak and the roofline position of one device record.

Contract: ``roofline_fields(record, profile)`` returns what to add to a timed device record,
computed only from the record's own throughput (``tflops`` and ``gbps_compulsory``, which
the kernel family derived from the problem's FLOPs and compulsory bytes) and the profile:
- ``throughput.arithmetic_intensity``: FLOPs / byte moved (= tflops / gbps_compulsory);
- ``throughput.pct_of_peak``: achieved FLOP/s over the profile's dense peak for the
  problem's dtype, in percent; None when the peak is unknown;
- ``roofline``: device, origin (datasheet / calibrated), source, peak TFLOP/s, bandwidth
  TB/s, ridge point, ``bound`` (compute or memory at this intensity), the attainable
  TFLOP/s and % of it; or ``{"status": "peak unknown", ...}`` with the reason.
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
    if not tflops or not gbps:
        return {}
    intensity = tflops * 1e12 / (gbps * 1e9)
    throughput["arithmetic_intensity"] = intensity
    dtype = _dtype(record)
    peak = profile.peak_flops_for(dtype) if (profile and dtype) else None
    throughput["pct_of_peak"] = 100.0 * tflops * 1e12 / peak if peak else None
    if profile is None:
        return {"throughput": throughput,
                "roofline": {"status": PEAK_UNKNOWN, "device": device, "reason": "no profile for this device"}}
    if peak is None:
        return {"throughput": throughput,
                "roofline": {"status": PEAK_UNKNOWN, "device": profile.device, "origin": profile.origin,
                             "reason": f"no published {dtype} peak for {profile.device}", "source": profile.source}}
    roof: dict[str, Any] = {
        "status": "ok",
        "device": profile.device,
        "origin": profile.origin,
        "source": profile.source,
        "dtype": dtype,
        "peak_tflops": peak / 1e12,
        "bandwidth_tbps": profile.memory_bandwidth / 1e12 if profile.memory_bandwidth else None,
    }
    if profile.memory_bandwidth:
        ridge = peak / profile.memory_bandwidth
        attainable = min(peak, intensity * profile.memory_bandwidth)
        roof.update({
            "ridge_flop_per_byte": ridge,
            "bound": "compute" if intensity >= ridge else "memory",
            "attainable_tflops": attainable / 1e12,
            "pct_of_attainable": 100.0 * tflops * 1e12 / attainable,
        })
    else:
        roof.update({"bound": None, "attainable_tflops": None, "pct_of_attainable": None})
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
