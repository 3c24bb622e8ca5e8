"""Behaviour: global scratch shared by two kernels of one PrimFunc.

Contract: ``chunk_total`` sums a vector in two launches inside one ``T.prim_func``: the first
``T.Kernel`` writes one partial sum a chunk into ``partial``, a ``T.alloc_global`` buffer that
is no parameter (tlbench allocates no output for it), and the second ``T.Kernel`` reads the
partials back and writes the total.  The one output is the total; the compiled source holds
both kernels.  CUDA only: an Ascend PrimFunc launches one kernel.
"""

import tilelang.language as T
import torch

from tlbench import kernel_sweep


def chunk_total(N, chunk):
    parts = N // chunk

    @T.prim_func
    def main(vec: T.Tensor((N,), "float32"), total: T.Tensor((1,), "float32")):
        partial = T.alloc_global((parts,), "float32")
        with T.Kernel(parts, threads=128) as c:
            piece = T.alloc_fragment((chunk,), "float32")
            one = T.alloc_fragment((1,), "float32")
            T.copy(vec[c * chunk], piece)
            T.reduce_sum(piece, one, dim=0)
            T.copy(one, partial[c])
        with T.Kernel(1, threads=128):
            sums = T.alloc_fragment((parts,), "float32")
            out = T.alloc_fragment((1,), "float32")
            T.copy(partial, sums)
            T.reduce_sum(sums, out, dim=0)
            T.copy(out, total)
    return main


SWEEP = kernel_sweep(
    "behaviour_scratch", {"cuda": chunk_total},
    sizes={"N": 1 << 20}, smoke={"N": 8192}, quick=(),
    axes={"chunk": [1024]},
    inputs=lambda device, N: [torch.rand(N, device=device)],
    reference=lambda vec: vec.double().sum().float().reshape(1),
    rtol=1e-4, atol=1e-3,
)


def test_scratch_two_kernels(tlbench):
    tlbench.run()
