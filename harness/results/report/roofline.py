"""% of peak and the roofline position of one device record (pure; never guesses).

Contract: ``roofline_fields(record, profile)``: the fields to add (``arithmetic_intensity``,
``pct_of_peak``, ``pct_of_bandwidth``, ``roofline``, or "peak unknown" with a ``reason``);
``peak_dtype(record) -> (dtype, where from, why not)``; ``annotate(record, profile)``: a copy
with them (compile records and records without throughput unchanged).
"""

from __future__ import annotations

from typing import Any, Mapping

from ...core.device_profile import DeviceProfile
from ...core.dtypes import is_floating, profile_name

PEAK_UNKNOWN = "peak unknown"
NO_DTYPE = "the problem names no dtype"


def peak_dtype(record: Mapping[str, Any]) -> tuple[str | None, str | None, str]:
    """(dtype in the profiles' spelling, "problem" / "inputs", why there is none: "" when there is)."""
    named = (record.get("problem") or {}).get("dtype")
    if named:
        return profile_name(named), "problem", ""
    held = record.get("input_dtypes")
    if held is None:
        return None, None, f"{NO_DTYPE} and the record names no input dtypes to read a peak for"
    names = sorted({profile_name(d) for d in held})
    floats = [d for d in names if is_floating(d)]
    candidates = floats or [d for d in names if d != "bool"]
    if len(candidates) == 1:
        return candidates[0], "inputs", ""
    if not candidates:
        return None, None, f"{NO_DTYPE} and its inputs hold no numeric tensor to read a peak for"
    return None, None, (f"{NO_DTYPE} and its inputs hold {' and '.join(candidates)}: name the dtype its FLOPs run at "
                        "in the sizes (dtype=...)")


def roofline_fields(record: Mapping[str, Any], profile: DeviceProfile | None, device: str | None = None) -> dict[str, Any]:
    throughput = dict(record.get("throughput") or {})
    tflops, gbps = throughput.get("tflops"), throughput.get("gbps_compulsory")
    if not tflops and not gbps:
        return {}
    bandwidth = profile.memory_bandwidth if profile is not None else None
    if tflops and gbps:
        throughput["arithmetic_intensity"] = tflops * 1e12 / (gbps * 1e9)
    intensity = throughput.get("arithmetic_intensity")
    dtype, dtype_from, no_dtype = peak_dtype(record)
    peak = profile.peak_flops_for(dtype) if (profile and dtype) else None
    if tflops:
        throughput["pct_of_peak"] = 100.0 * tflops * 1e12 / peak if peak else None
    if gbps:
        throughput["pct_of_bandwidth"] = 100.0 * gbps * 1e9 / bandwidth if bandwidth else None
    if profile is None:
        return {"throughput": throughput,
                "roofline": {"status": PEAK_UNKNOWN, "device": device, "reason": "no profile for this device"}}
    roof: dict[str, Any] = {"status": "ok" if peak else PEAK_UNKNOWN, "device": profile.device,
                            "origin": profile.origin, "source": profile.source,
                            "bandwidth_tbps": bandwidth / 1e12 if bandwidth else None}
    if peak is None:
        why = no_dtype or f"no published {dtype} peak for {profile.device}"
        if dtype_from == "inputs":
            why += f" (its inputs' dtype: {NO_DTYPE})"
        # bytes and no FLOPs: the kernel is read against the bandwidth alone
        roof.update({"reason": why, "bound": "memory" if gbps and not tflops and bandwidth else None})
        return {"throughput": throughput, "roofline": roof}
    roof.update({"dtype": dtype, "dtype_from": dtype_from, "peak_tflops": peak / 1e12})
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


def unknown_peak_words(record: Mapping[str, Any]) -> str:
    """``peak unknown: <why>`` (the roofline's reason), or ``peak unknown`` where it gives none."""
    reason = (record.get("roofline") or {}).get("reason")
    return f"{PEAK_UNKNOWN}: {reason}" if reason else PEAK_UNKNOWN


def format_pct(record: Mapping[str, Any]) -> str:
    """``71.3% of peak`` / ``peak unknown: <why>`` / '' for a record without device throughput."""
    throughput = record.get("throughput") or {}
    if "pct_of_peak" not in throughput:
        return ""
    pct = throughput["pct_of_peak"]
    return unknown_peak_words(record) if pct is None else f"{pct:.1f}% of peak"
