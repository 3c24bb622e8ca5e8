"""What SM clock does NVML report while a GEMM queue runs, and what does a spin kernel measure?

For the timer cross-check's clock column: ncu (``sm__cycles_elapsed.avg.per_second``) reads the
big GEMMs at about 1550 MHz while NVML, read after each batch, reads 1900+.  Per size: cuBLAS
``A @ B.T`` fp16 queued for about 150 ms; NVML's SM clock and clock-event reasons polled every
0.5 ms while the queue runs, once before (idle) and once after; and ``torch.cuda._sleep`` (a
spin of a fixed cycle count) timed by events, alone and queued right behind the GEMMs, as
cycles / time.  Run on a GPU host: ``python3 results/h200-parity/nvml_clock_probe.py``.
"""

import statistics
import time

import pynvml
import torch

SPIN_CYCLES = 2_000_000


def spin_mhz() -> float:
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(SPIN_CYCLES)
    end.record()
    end.synchronize()
    return SPIN_CYCLES / (start.elapsed_time(end) * 1e3)  # cycles / us = MHz


def main() -> None:
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    clock = lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)  # noqa: E731
    reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or pynvml.nvmlDeviceGetCurrentClocksThrottleReasons
    print("size  us/call  NVML idle  NVML during (median, min-max, polls)  NVML after  reasons during  spin alone  spin after GEMMs")
    for n in (1024, 2048, 4096, 8192):
        a = torch.randn(n, n, dtype=torch.float16, device="cuda")
        b = torch.randn(n, n, dtype=torch.float16, device="cuda")
        for _ in range(5):
            a @ b.T
        torch.cuda.synchronize()
        time.sleep(0.3)
        idle, alone = clock(), spin_mhz()
        one = 2 * n**3 / 780e12
        reps = max(20, int(0.15 / one))
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            a @ b.T
        end.record()
        s0, s1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s0.record()
        torch.cuda._sleep(SPIN_CYCLES)
        s1.record()
        polls, masks = [], set()
        while not end.query():
            polls.append(clock())
            masks.add(int(reasons(handle)))
            time.sleep(0.0005)
        torch.cuda.synchronize()
        after = clock()
        per_call = start.elapsed_time(end) * 1e3 / reps
        spin_after = SPIN_CYCLES / (s0.elapsed_time(s1) * 1e3)
        during = f"{statistics.median(polls):.0f} ({min(polls)}-{max(polls)}, {len(polls)})" if polls else "no poll"
        print(f"{n}  {per_call:.2f}  {idle}  {during}  {after}  {sorted(hex(m) for m in masks)}  {alone:.0f}  {spin_after:.0f}")


if __name__ == "__main__":
    main()
