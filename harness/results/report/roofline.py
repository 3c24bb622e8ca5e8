"""% of peak and the roofline position of one device record.

Contract: ``roofline_fields(record, profile)`` returns what to add to a timed device record,
computed only from the record's own throughput (``tflops`` and ``gbps_compulsory``, which
the kernel family derived from the problem's FLOPs and compulsory bytes) and the profile:
- ``throughput.arithmetic_intensity``: FLOPs / byte moved (= tflops / gbps_compulsory);
- ``throughput.pct_of_peak``: achieved FLOP/s over the profile's dense peak for the
  record's dtype (``peak_dtype``), in percent; None when the peak is unknown;
- ``throughput.pct_of_bandwidth``: achieved bytes/s (the family's compulsory bytes) over the
  profile's memory bandwidth, in percent, wherever the kernel moves bytes and the bandwidth is
  known - with or without a FLOP peak (a kernel that names no dtype, or counts no FLOPs);
- ``roofline``: device, origin (datasheet / device / calibrated), source, bandwidth TB/s and,
  with a peak, peak TFLOP/s, ridge point, ``bound`` (compute or memory at this intensity), the
  attainable TFLOP/s and % of it, ``dtype`` and ``dtype_from`` ("problem" or "inputs");
  without a peak ``status`` is "peak unknown" with the ``reason`` in words, and a kernel that
  counts bytes and no FLOPs is ``bound`` "memory".
``peak_dtype(record) -> (dtype, where from, why not)``: the problem's ``dtype`` where its
sizes name one; else the one dtype of the tensors the kernel was called with as inputs (the
record's ``input_dtypes``: its floating ones, or where it has none its integer ones - index
and mask tensors do not choose the peak); else no dtype, and why: the record names no input
dtypes, or they hold several (``float8_e4m3`` and ``float32`` scales: the sizes must name
the one the FLOPs run at).  Names are read in the profiles' spelling
(harness/core/dtypes.py ``profile_name``).
``annotate(record, profile)`` returns a copy of the record with those fields.  Compile
records and records without throughput are returned unchanged.  Pure; never guesses.
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
    roof: dict[str, Any] = {
        "status": "ok" if peak else PEAK_UNKNOWN,
        "device": profile.device,
        "origin": profile.origin,
        "source": profile.source,
        "bandwidth_tbps": bandwidth / 1e12 if bandwidth else None,
    }
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
