"""What a device can do at most: peak dense tensor FLOP/s per dtype and memory bandwidth.

Contract: ``DeviceProfile`` is a frozen value with its ``source`` and ``origin``: ``datasheet`` (published, shipped
by a backend), ``device`` (what the device reports: a bandwidth, no FLOP peak) or ``calibrated`` (``tlbench
calibrate``, kept in its own file).  A dtype without a figure is absent (``peak_flops_for`` returns None): a number
is never guessed.  Backends provide them through the optional ``Backend.device_profile(info)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

DATASHEET, DEVICE, CALIBRATED = "datasheet", "device", "calibrated"
TERA = 1e12


@dataclass(frozen=True)
class DeviceProfile:
    device: str  # the product, e.g. "NVIDIA H200 SXM"
    peak_flops: Mapping[str, float]  # dtype (cases.DTYPE_BYTES names) -> dense tensor FLOP/s
    memory_bandwidth: float | None  # bytes/s; None: not published
    source: str  # document / URL the numbers come from
    origin: str = DATASHEET
    notes: str = ""
    device_names: tuple[str, ...] = field(default=())  # names the runtime reports for it

    def peak_flops_for(self, dtype: str) -> float | None:
        value = self.peak_flops.get(dtype)
        return float(value) if value else None

    def to_dict(self) -> dict[str, object]:
        return {"device": self.device, "peak_flops": dict(self.peak_flops), "memory_bandwidth": self.memory_bandwidth,
                "source": self.source, "origin": self.origin, "notes": self.notes, "device_names": list(self.device_names)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DeviceProfile":
        return cls(device=str(data["device"]),
                   peak_flops={str(k): float(v) for k, v in (data.get("peak_flops") or {}).items()},
                   memory_bandwidth=float(data["memory_bandwidth"]) if data.get("memory_bandwidth") else None,
                   source=str(data.get("source") or ""), origin=str(data.get("origin") or DATASHEET),
                   notes=str(data.get("notes") or ""), device_names=tuple(data.get("device_names") or ()))


def match_profile(profiles: tuple[DeviceProfile, ...], device_name: str | None) -> DeviceProfile | None:
    """The profile whose ``device_names`` holds exactly ``device_name`` (None when unknown)."""
    return next((p for p in profiles if device_name in p.device_names), None) if device_name else None


def datasheet(device: str, names: tuple[str, ...], tflops: Mapping[str, float], tb_per_s: float | None, source: str,
              notes: str = "") -> DeviceProfile:
    """A datasheet profile from published TFLOP/s per dtype and TB/s (None: not published)."""
    return DeviceProfile(device=device, peak_flops={dtype: value * TERA for dtype, value in tflops.items()},
                         memory_bandwidth=None if tb_per_s is None else tb_per_s * TERA, source=source, notes=notes,
                         device_names=names)
