"""The GPU runtime's first use, paid as the device worker starts (the traits' ``runtime_warm_up``).

Contract: ``warm_up()`` imports torch only (not tilelang, not the backend), and on a host
where torch sees a CUDA GPU runs cuBLAS's first GEMMs (the check's fp32 reference, the
vendor item's fp16) and one profiler session (CUPTI through kineto, which the timer uses) on
the current device - the one the worker is pinned to.  It measures nothing; without a GPU
it returns at once.  The worker runs it in a thread while it imports the rest, and its first
device request waits for it (harness/measure/worker_main.py).
"""

from __future__ import annotations


def warm_up() -> None:
    import torch

    if not torch.cuda.is_available():
        return
    from ..gpu.timing import profile_kernels

    device = torch.device("cuda", torch.cuda.current_device())
    a = torch.randn(256, 256, device=device)
    half = a.half()
    profile_kernels(lambda: (a @ a.T, half @ half.T))
    torch.cuda.synchronize(device)
