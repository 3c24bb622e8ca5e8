"""Does a GEMM take longer when it starts from an idle GPU, as each kernel does under ncu?

ncu serialises: every profiled kernel starts after a pause of milliseconds, while the harness's
CUPTI batch queues (L2 flush, call) pairs back to back.  Per size, cuBLAS ``A @ B.T`` fp16 and a
one-block torch op (the launch floor) are timed by CUPTI kernel timestamps (the harness's own
``profile_kernels``), each call after the harness's write flush (a buffer of twice L2 zeroed):
``back-to-back`` (40 pairs queued, one sync), and ``gap 1 ms`` / ``gap 10 ms`` (each pair
followed by a sync and a host sleep).  Medians in us (memsets a cuBLAS call queues left out),
and each gap mode / back-to-back.
Run on a GPU host from the repository root: ``python3 results/h200-parity/isolation_probe.py``.
"""

import statistics
import time

import torch

from tlbench.backends.nvidia.timing import profile_kernels

CALLS = 40
MODES = {"back-to-back": None, "gap 1 ms": 1e-3, "gap 10 ms": 10e-3}


def kernel_us(fn, flush, gap_s: float | None) -> float:
    def calls():
        for _ in range(CALLS):
            flush()
            fn()
            if gap_s is not None:
                torch.cuda.synchronize()
                time.sleep(gap_s)

    flush_names = {name for name, _, _ in profile_kernels(flush)}
    events = sorted(profile_kernels(calls), key=lambda e: e[1])
    spans = [end - start for name, start, end in events if name not in flush_names and "memset" not in name.lower()]
    return statistics.median(spans)


def main() -> None:
    props = torch.cuda.get_device_properties(0)
    buffer = torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device="cuda")
    flush = buffer.zero_
    print("case  " + "  ".join(f"{m} us" for m in MODES) + "  " + "  ".join(f"{m} / back-to-back" for m in list(MODES)[1:]))
    row = torch.randn(128, device="cuda")
    cases = [("floor: torch mul of 128 floats", lambda: torch.mul(row, 1.0))]
    for n in (1024, 2048, 4096, 8192):
        a = torch.randn(n, n, dtype=torch.float16, device="cuda")
        b = torch.randn(n, n, dtype=torch.float16, device="cuda")
        cases.append((f"cuBLAS {n}^3", lambda a=a, b=b: a @ b.T))
    for label, fn in cases:
        for _ in range(10):
            flush()
            fn()
        torch.cuda.synchronize()
        medians = {mode: kernel_us(fn, flush, gap) for mode, gap in MODES.items()}
        base = medians["back-to-back"]
        print(f"{label}  " + "  ".join(f"{v:.2f}" for v in medians.values()) + "  "
              + "  ".join(f"{medians[m] / base:.4f}" for m in list(MODES)[1:]))


if __name__ == "__main__":
    main()
