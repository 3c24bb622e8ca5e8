"""Top-k of each row (MoE gating): values and int32 indices, by k rounds of arg-max: after tilelang examples/topk/example_topk.py.

Our own code with that file's public functions (``tl_topk`` under ``@tilelang.autotune``,
``get_configs``, ``ref_program``).  A block holds ``blk_m`` rows of scores in registers; each
of the k rounds takes every row's maximum, the largest column holding it, writes both, and
knocks that value out (to -10000, below any score the example feeds) for the next round.
"""

import itertools

import tilelang
import tilelang.language as T
import torch

KNOCKED_OUT = -10000.0


def get_configs():
    """The autotuner's space: rows per block x threads."""
    return [{"blk_m": rows, "threads": threads} for rows, threads in itertools.product((64, 128, 256), (128, 256, 512))]


@tilelang.autotune(configs=get_configs())
@tilelang.jit
def tl_topk(logits, topk, blk_m, threads=128):
    """(topk_gates, topk_indices) of the M x N fp32 ``logits``: the k largest per row, largest first."""
    tokens, experts = T.const("M, N")
    logits: T.Tensor([tokens, experts], T.float32)
    topk_gates = T.empty([tokens, topk], T.float32)
    topk_indices = T.empty([tokens, topk], T.int32)

    with T.Kernel(T.ceildiv(tokens, blk_m), threads=threads) as block:
        first = block * blk_m
        scores = T.alloc_fragment([blk_m, experts], T.float32)
        best = T.alloc_fragment([blk_m], T.float32)
        column_if_best = T.alloc_fragment([blk_m, experts], T.int32)
        best_column = T.alloc_fragment([blk_m], T.int32)

        T.copy(logits[first, 0], scores)
        for rank in T.serial(topk):
            T.reduce_max(scores, best, dim=1, clear=True)
            for r, c in T.Parallel(blk_m, experts):
                column_if_best[r, c] = T.if_then_else(scores[r, c] == best[r], c, -1)
            T.reduce_max(column_if_best, best_column, dim=1, clear=True)
            for r, c in T.Parallel(blk_m, experts):
                scores[r, c] = T.if_then_else(scores[r, c] == best[r], KNOCKED_OUT, scores[r, c])
            for r in T.Parallel(blk_m):
                topk_gates[first + r, rank] = best[r]
                topk_indices[first + r, rank] = best_column[r]

    return topk_gates, topk_indices


def ref_program(logits, top_k):
    """torch's answer: (values, int32 indices), largest first."""
    values, indices = torch.topk(logits, top_k, dim=1)
    return values, indices.to(torch.int32)
