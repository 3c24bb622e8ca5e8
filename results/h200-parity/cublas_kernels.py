"""Which cuBLAS kernel torch's ``A @ B.T`` (fp16, the gemm suites' vendor call) launches per
square size, and its grid and cluster: names and launch shapes, read with torch.profiler on the
device.  No timing is taken here (the suites time cuBLAS); this says what it is being timed.
usage: python3 results/h200-parity/cublas_kernels.py [SIZE ...]   (default 1024 2048 4096 8192)"""

import sys

import torch
from torch.profiler import ProfilerActivity, profile


def launched(size):
    a = torch.randn(size, size, dtype=torch.float16, device="cuda")
    b = torch.randn(size, size, dtype=torch.float16, device="cuda")
    a @ b.T  # warm: cuBLAS's heuristic and module load happen outside the profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        a @ b.T
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return [(e.name, getattr(e, "kernel_grid", None) or "") for e in events]


def main(sizes):
    print("| size | kernel (cuBLAS via torch A @ B.T, fp16) |")
    print("|---|---|")
    for size in sizes:
        for name, grid in launched(size):
            print(f"| {size}^3 | `{name}` {grid} |")


if __name__ == "__main__":
    main([int(s) for s in sys.argv[1:]] or [1024, 2048, 4096, 8192])
