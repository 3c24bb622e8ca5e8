"""The Ascend run path: torch_npu, bisheng and an NPU, or the exact reason they are missing.

Contract: ``probe()`` never raises and never breaks ``import torch``: its ``NpuProbe`` names each
missing piece and the versions found.  ``NpuTimer`` is the Ascend ``DeviceTimer``: k calls timed
with ``torch.npu.Event`` pairs, each after an L2 flush; no telemetry.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any, Callable


METHOD_NPU_EVENTS = "npu-event"
# Ascend 950 L2 is 192 MiB or less; flush twice that when the device does not say.
DEFAULT_L2_BYTES = 192 * 2**20


@dataclass
class NpuProbe:
    missing: list[str] = field(default_factory=list)
    versions: dict[str, Any] = field(default_factory=dict)
    torch_npu: Any = None

    @property
    def reason(self) -> str | None:
        return "; ".join(self.missing) if self.missing else None


def find_bisheng() -> str | None:
    home = os.environ.get("BISHENG_HOME")
    in_home = os.path.join(home, "bin", "bisheng") if home else ""
    return shutil.which("bisheng") or (in_home if in_home and os.path.isfile(in_home) else None)


def _cann_version() -> str | None:
    for var in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
        home = os.environ.get(var)
        if not home:
            continue
        for name in ("version.cfg", "ascend_toolkit_install.info"):
            path = os.path.join(home, name)
            if os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        if "version" in line.lower():
                            return line.strip()
        return home
    return None


def _bisheng_version(path: str) -> str | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def probe(import_module: Callable[[str], Any] = importlib.import_module) -> NpuProbe:
    result, torch_npu = NpuProbe(), None
    try:
        torch_npu = import_module("torch_npu")
    except ModuleNotFoundError:
        result.missing.append("torch_npu is not installed")
    except Exception as exc:  # CANN missing: ImportError/OSError from libhccl.so and friends
        result.missing.append(f"torch_npu failed to import: {type(exc).__name__}: {exc}")
    if torch_npu is not None:
        result.torch_npu = torch_npu
        result.versions["torch_npu"] = getattr(torch_npu, "__version__", "unknown")
    bisheng = find_bisheng()
    if bisheng is None:
        result.missing.append("bisheng compiler not found (PATH or BISHENG_HOME/bin)")
    else:
        result.versions["bisheng"] = _bisheng_version(bisheng) or bisheng
    result.versions["cann"] = _cann_version()
    if torch_npu is not None:
        import torch

        try:
            if not torch.npu.is_available():
                result.missing.append("no NPU visible (torch.npu.is_available() is False)")
            else:
                result.versions["npu"] = torch.npu.get_device_name(0)
        except Exception as exc:
            result.missing.append(f"NPU query failed: {type(exc).__name__}: {exc}")
    return result


class NpuTimer:
    method = METHOD_NPU_EVENTS

    def __init__(self, fn: Callable[[], None], flush_l2: bool, device: Any = "npu") -> None:
        import torch

        self._torch, self.fn = torch, fn
        self.l2_flush_bytes = 2 * DEFAULT_L2_BYTES if flush_l2 else 0
        self._flush = torch.empty(self.l2_flush_bytes, dtype=torch.uint8, device=device) if flush_l2 else None
        self.notes: list[str] = []

    def batch(self, k: int) -> list[float]:
        npu = self._torch.npu
        starts = [npu.Event(enable_timing=True) for _ in range(k)]
        ends = [npu.Event(enable_timing=True) for _ in range(k)]
        for i in range(k):
            if self._flush is not None:
                self._flush.zero_()
            starts[i].record()
            self.fn()
            ends[i].record()
        npu.synchronize()
        return [s.elapsed_time(e) * 1e-3 for s, e in zip(starts, ends)]

    def telemetry(self) -> dict[str, Any] | None:
        return None
