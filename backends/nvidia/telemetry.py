"""NVML telemetry of one GPU: SM clock, temperature, power, clock-event (throttle) reasons.

Contract: ``NvmlTelemetry.for_device(uuid)`` finds the GPU by UUID (under any pinning), or returns
the text why NVML is unavailable; ``read()`` returns the readings, or None with ``missing`` saying
why.  Never raises.
"""

from __future__ import annotations

from typing import Any

# NVML clocks-event reason bits (nvmlClocksEventReason*), named as nvidia-smi names them.
REASONS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap",
           0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
           0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
           0x100: "display_clock_setting"}


def reason_names(mask: int) -> list[str]:
    names = [name for bit, name in REASONS.items() if mask & bit]
    rest = mask & ~sum(REASONS)
    return names + ([f"0x{rest:x}"] if rest else [])


class NvmlTelemetry:
    def __init__(self, nvml: Any, handle: Any) -> None:
        self._nvml, self._handle = nvml, handle
        self.missing: str | None = None

    @classmethod
    def for_device(cls, uuid: str | None) -> "NvmlTelemetry | None | str":
        try:
            import pynvml

            pynvml.nvmlInit()
            text = str(uuid or "")
            handle = pynvml.nvmlDeviceGetHandleByUUID(text if text.startswith("GPU-") else f"GPU-{text}")
            return cls(pynvml, handle)
        except Exception as exc:  # ImportError, NVMLError: telemetry is optional, say why
            return f"NVML unavailable ({type(exc).__name__}: {exc})"

    def read(self) -> dict[str, Any] | None:
        nvml, h = self._nvml, self._handle
        try:
            reasons_fn = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or nvml.nvmlDeviceGetCurrentClocksThrottleReasons
            mask = int(reasons_fn(h))
            return {
                "sm_clock_mhz": int(nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM)),
                "sm_clock_max_mhz": int(nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_SM)),
                "temperature_c": int(nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU)),
                "power_w": nvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
                "throttle_reasons": reason_names(mask),
            }
        except Exception as exc:  # a read that fails leaves this batch without telemetry
            self.missing = f"NVML read failed ({type(exc).__name__}: {exc})"
            return None
