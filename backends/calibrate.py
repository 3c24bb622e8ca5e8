"""Measure a device profile on this machine: the vendor GEMM's best rate and a copy's bandwidth.

Contract: ``calibrate(torch_device_module, device, name, seconds)`` returns a ``DeviceProfile``
with ``origin="calibrated"``: per float16/bfloat16 the best ``torch.matmul`` FLOP/s, and the
bandwidth of ``copy_`` (device-event medians, the run capped near ``seconds``).  A lower bound of
the hardware, never mixed into datasheet profiles.
"""

from __future__ import annotations

import datetime as _dt
import statistics
import time
from typing import Any, Callable

import torch

from tlbench.harness.core.device_profile import CALIBRATED, DeviceProfile

GEMM_SIZES = (4096, 8192)
COPY_BYTES = 1 << 30  # 1 GiB each way: far beyond any L2
WARMUP, ROUNDS = 3, 15


def _median_s(module: Any, fn: Callable[[], None], deadline: float) -> float:
    for _ in range(WARMUP):
        fn()
    module.synchronize()
    times = []
    for _ in range(ROUNDS):
        start, end = module.Event(enable_timing=True), module.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
        if time.monotonic() > deadline and len(times) >= 5:
            break
    return statistics.median(times)


def calibrate(module: Any, device: Any, name: str, seconds: float = 30.0) -> DeviceProfile:
    deadline = time.monotonic() + seconds
    peaks: dict[str, float] = {}
    words = []
    for dtype_name, dtype in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        best = 0.0
        for n in GEMM_SIZES:
            a = torch.randn(n, n, device=device, dtype=dtype)
            b = torch.randn(n, n, device=device, dtype=dtype)
            c = torch.empty(n, n, device=device, dtype=dtype)
            median = _median_s(module, lambda: torch.matmul(a, b, out=c), deadline)
            rate = 2 * n**3 / median
            if rate > best:
                best, best_n = rate, n
            del a, b, c
        peaks[dtype_name] = best
        words.append(f"{dtype_name}: torch.matmul {best_n}^3, median of up to {ROUNDS} calls")
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    median = _median_s(module, lambda: dst.copy_(src), deadline)
    bandwidth = 2 * COPY_BYTES / median
    del src, dst
    stamp = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return DeviceProfile(
        device=name,
        peak_flops=peaks,
        memory_bandwidth=bandwidth,
        source=f"tlbench calibrate {stamp}, torch {torch.__version__}: " + "; ".join(words)
               + f"; bandwidth: copy_ of {COPY_BYTES >> 20} MiB (read + write), median of up to {ROUNDS} calls",
        origin=CALIBRATED,
        notes="measured on this machine: what the vendor library reaches, a lower bound of the hardware peak",
        device_names=(name,),
    )
