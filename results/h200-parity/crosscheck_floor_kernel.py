"""The smallest kernel the timer cross-check times: one block copies one row of ``N`` floats.

Its device time is next to nothing, so what each timer reads for it is the timer's own floor:
the fixed cost a timer adds to every kernel (results/h200-parity/crosscheck_floor_suite.py).
Plain tilelang: nothing here knows tlbench.
"""

import tilelang
import tilelang.language as T


@tilelang.jit
def copy_row_cuda(A, threads=128, dtype="float32"):
    N = T.const("N")

    A: T.Tensor((N,), dtype)
    B = T.empty((N,), dtype)

    with T.Kernel(1, threads=threads) as bx:
        for i in T.Parallel(N):
            B[i] = A[i]

    return B


def inputs(device, N, dtype):
    import torch

    return [torch.randn(N, dtype=getattr(torch, dtype), device=device)]


def reference(A):
    return A.clone()


def torch_copy(A):
    """torch's copy as one elementwise kernel (``A.clone()`` of a contiguous tensor is a
    device-to-device memcpy, which neither CUPTI's kernel records nor ncu would see)."""
    import torch

    return torch.mul(A, 1.0)
