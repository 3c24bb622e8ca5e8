"""Behaviour: integer and bool outputs, beside a float one.

Contract: one kernel writes three outputs from a float input - ``bucket`` (int32, floor of
4x), ``positive`` (bool) and ``square`` (float32).  No ``check=`` is given, so tlbench picks
each output's rule from its dtype: ``exact()`` for the int32 and the bool outputs, the float
tolerance for the float one; the outputs are allocated at their own dtypes (an int32 and a
bool tensor) and poisoned with what each dtype holds before the checked run.  The Ascend body
has no bool output (tilelang 0.1.15 cannot vectorise one there), so ``reference`` reads
``dialect``.
"""

import tilelang.ascend.language as TA
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def split_cuda(N, tile):
    @T.prim_func
    def main(src: T.Tensor((N,), "float32"), bucket: T.Tensor((N,), "int32"),
             positive: T.Tensor((N,), "bool"), square: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile, threads=128) as blk:
            for t in T.Parallel(tile):
                v = src[blk * tile + t]
                bucket[blk * tile + t] = T.Cast("int32", T.floor(v * 4.0))
                positive[blk * tile + t] = v > 0
                square[blk * tile + t] = v * v
    return main


def split_ascend(N, tile):
    """No bool output: tilelang 0.1.15's SimtVF has no Ascend type for a vector of bool."""

    @TA.prim_func
    def main(src: TA.Tensor((N,), "float32"), bucket: TA.Tensor((N,), "int32"), square: TA.Tensor((N,), "float32")):
        with TA.Kernel(N // tile) as blk:
            v = TA.alloc_shared((tile,), "float32")
            b = TA.alloc_shared((tile,), "int32")
            s = TA.alloc_shared((tile,), "float32")
            TA.copy(src[blk * tile : (blk + 1) * tile], v)
            with TA.SimtVF(threads=128):
                for t in TA.Parallel(tile):
                    b[t] = TA.Cast("int32", TA.floor(v[t] * 4.0))
                    s[t] = v[t] * v[t]
            TA.copy(b, bucket[blk * tile : (blk + 1) * tile])
            TA.copy(s, square[blk * tile : (blk + 1) * tile])
    return main


def expected(src, dialect):
    outs = [torch.floor(src * 4).to(torch.int32), src > 0, src * src]
    return outs if dialect == "cuda" else [outs[0], outs[2]]


SWEEP = kernel_sweep(
    "behaviour_int_bool", {"cuda": split_cuda, "ascend": split_ascend},
    sizes={"N": 1 << 20}, smoke={"N": 2048}, quick=(),
    axes={"tile": [256]},
    inputs=lambda device, N: [torch.randn(N, device=device)],
    reference=expected,
)


def test_int_bool_outputs(tlbench):
    tlbench.run()
