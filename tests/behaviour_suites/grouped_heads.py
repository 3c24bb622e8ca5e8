"""Behaviour: grouped heads - several query heads share one key/value head.

Contract: the problem is named by its own size words (``batch``, ``heads``, ``groups``,
``dim``), which reach the bodies and the callables by name and make the ids.  Query head
``h`` reads key head ``h // (heads // groups)``: ``gate`` writes ``query * key[group]``
element by element.  Two problems (grouped, and one shared head) build two launch grids.
CUDA and Ascend bodies.
"""

import tilelang.ascend.language as TA
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def gate_cuda(batch, heads, groups, dim):
    share = heads // groups

    @T.prim_func
    def main(query: T.Tensor((batch, heads, dim), "float32"), key: T.Tensor((batch, groups, dim), "float32"),
             gated: T.Tensor((batch, heads, dim), "float32")):
        with T.Kernel(heads, batch, threads=64) as (h, b):
            for d in T.Parallel(dim):
                gated[b, h, d] = query[b, h, d] * key[b, h // share, d]
    return main


def gate_ascend(batch, heads, groups, dim):
    share = heads // groups

    @TA.prim_func
    def main(query: TA.Tensor((batch, heads, dim), "float32"), key: TA.Tensor((batch, groups, dim), "float32"),
             gated: TA.Tensor((batch, heads, dim), "float32")):
        with TA.Kernel(batch * heads) as bh:
            q = TA.alloc_shared((dim,), "float32")
            k = TA.alloc_shared((dim,), "float32")
            TA.copy(query[bh // heads, bh % heads, :], q)
            TA.copy(key[bh // heads, bh % heads // share, :], k)
            with TA.SimtVF(threads=64):
                for d in TA.Parallel(dim):
                    q[d] = q[d] * k[d]
            TA.copy(q, gated[bh // heads, bh % heads, :])
    return main


def tensors(device, batch, heads, groups, dim):
    return [torch.randn(batch, heads, dim, device=device), torch.randn(batch, groups, dim, device=device)]


def expected(query, key, heads, groups):
    return query * key.repeat_interleave(heads // groups, dim=1)


SWEEP = kernel_sweep(
    "behaviour_gqa", {"cuda": gate_cuda, "ascend": gate_ascend},
    sizes={"batch": 4, "heads": 32, "groups": 8, "dim": 128},
    smoke=[{"batch": 2, "heads": 8, "groups": 2, "dim": 64}, {"batch": 1, "heads": 4, "groups": 1, "dim": 64}],
    quick=(),
    inputs=tensors,
    reference=expected,
)


def test_grouped_heads(tlbench):
    tlbench.run()
