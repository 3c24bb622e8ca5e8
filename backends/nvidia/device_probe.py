"""What this process's GPU is, through torch.cuda: for the NVIDIA backend that times here.

Contract: ``gpu_reason()`` says why torch sees no GPU (None: it sees one); ``device_arch(device)``
is the arch tilelang compiles for (``sm_90a`` on Hopper); ``read_device_info(name, arch, device,
reason)`` is ``device_info()``: versions, nvcc and, with a GPU, its properties, theoretical memory
bandwidth (torch's properties, no NVML), visible devices and driver (``nvidia-smi``).  torch and
tilelang are imported when called, never at import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

_ARCH_BY_CAPABILITY = {(8, 0): "sm_80", (8, 6): "sm_86", (8, 9): "sm_89", (9, 0): "sm_90a", (10, 0): "sm_100a", (12, 0): "sm_120"}


def gpu_reason() -> str | None:
    import torch

    if not torch.cuda.is_available():
        build = torch.version.cuda
        if build is None:
            return f"no CUDA GPU: torch {torch.__version__} is a CPU-only build"
        return f"no CUDA GPU visible (torch {torch.__version__}, CUDA {build}; torch.cuda.is_available() is False)"
    return None


def device_arch(device: Any) -> str:
    import torch

    cap = torch.cuda.get_device_capability(device)
    return _ARCH_BY_CAPABILITY.get(cap, f"sm_{cap[0]}{cap[1]}")


def read_device_info(name: str, arch: str, device: Any, reason: str | None) -> dict[str, Any]:
    import tilelang
    import torch

    info: dict[str, Any] = {"backend": name, "target": f"cuda {arch}",
                            "tilelang": tilelang.__version__, "torch": torch.__version__,
                            "torch_cuda": torch.version.cuda, "nvcc": shutil.which("nvcc")}
    if device is None:
        return {**info, "accelerator": None, "missing": reason}
    props = torch.cuda.get_device_properties(device)
    return {**info, "accelerator": props.name, "capability": f"{props.major}.{props.minor}",
            "sm_count": props.multi_processor_count, "memory_bytes": props.total_memory,
            "l2_bytes": int(getattr(props, "L2_cache_size", 0)),
            "uuid": str(getattr(props, "uuid", "")),
            **memory_bandwidth(props), "visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "driver": driver_version()}


def memory_bandwidth(props: Any) -> dict[str, Any]:
    """Theoretical bandwidth: memory clock (kHz) x bus bits / 8 x 2 (DDR); {} where unreported."""
    clock_khz = int(getattr(props, "memory_clock_rate", 0) or 0)
    bus_bits = int(getattr(props, "memory_bus_width", 0) or 0)
    if not clock_khz or not bus_bits:
        return {}
    return {"memory_clock_khz": clock_khz, "memory_bus_width_bits": bus_bits,
            "memory_bandwidth_bytes_s": 2 * bus_bits // 8 * clock_khz * 1000}


def driver_version() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None
