"""The GPU runtime's first use, paid as the device worker starts (the traits' ``runtime_warm_up``).

Contract: ``warm_up()`` imports torch only and, where it sees a GPU, runs cuBLAS's first GEMMs and
one CUPTI profiler session on the current device; it measures nothing.
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
