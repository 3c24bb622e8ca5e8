"""Grouped-query attention forward, BSHD layout, ``groups`` query heads sharing a K/V head: after tilelang examples/flash_attention/example_gqa_fwd_bshd.py.

Our own code with that file's public functions (``flashattn`` under ``@tilelang.autotune``
with ``out_idx=[3]`` and fast math, ``get_configs``, ``ref_program``).  A block owns block_M
query rows of one head; a pipelined loop over the K/V sequence in steps of block_N computes
the scores Q K^T (masked past the sequence end, or above the diagonal when causal), keeps the
running row maximum and sum of an online softmax in base 2 (the 1/sqrt(dim) scale folded
into log2 e), rescales the output accumulator and adds P V; the output is divided by the
sum at the end.
"""

import itertools

import tilelang
import tilelang.language as T
import torch
import torch.nn.functional as F

LOG2_E = 1.44269504


def get_configs(max_shared_mem=100 * 1024, dim=128, dtype_bytes=2):
    """The autotuner's space: square-ish tiles of 64..256, 128..512 threads, 2 or 3 stages, each
    warp's share a multiple of 16 rows, Q and K tiles within ``max_shared_mem``."""
    configs = []
    for block_M, block_N, threads in itertools.product((64, 128, 256), (64, 128, 256), (128, 256, 512)):
        warps = threads // 32
        if (block_M // warps) % 16 or (block_N // warps) % 16:
            continue
        if 2 * dtype_bytes * dim * (block_M + block_N) > max_shared_mem:
            continue
        configs += [{"block_M": block_M, "block_N": block_N, "num_stages": s, "threads": threads} for s in (2, 3)]
    return configs


@tilelang.autotune(configs=get_configs(), warmup=10, rep=10)
@tilelang.jit(out_idx=[3], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn(batch, heads, seq_len, dim, is_causal, groups=1, block_M=64, block_N=64, num_stages=0, threads=128):
    """The PrimFunc (Q [b, s, heads, d], K, V [b, s, heads / groups, d], fp16) -> Output like Q."""
    sm_scale = (1.0 / dim) ** 0.5 * LOG2_E
    q_shape = [batch, seq_len, heads, dim]
    kv_shape = [batch, seq_len, heads // groups, dim]
    dtype, accum = T.float16, T.float32

    @T.prim_func
    def main(Q: T.Tensor(q_shape, dtype), K: T.Tensor(kv_shape, dtype), V: T.Tensor(kv_shape, dtype),
             Output: T.Tensor(q_shape, dtype)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (q_tile, head, b):
            kv_head = head // groups
            q_sh = T.alloc_shared([block_M, dim], dtype)
            k_sh = T.alloc_shared([block_N, dim], dtype)
            v_sh = T.alloc_shared([block_N, dim], dtype)
            o_sh = T.alloc_shared([block_M, dim], dtype)
            scores = T.alloc_fragment([block_M, block_N], accum)
            probs = T.alloc_fragment([block_M, block_N], dtype)
            out = T.alloc_fragment([block_M, dim], accum)
            row_max = T.alloc_fragment([block_M], accum)
            last_max = T.alloc_fragment([block_M], accum)
            rescale = T.alloc_fragment([block_M], accum)
            step_sum = T.alloc_fragment([block_M], accum)
            row_sum = T.alloc_fragment([block_M], accum)

            T.copy(Q[b, q_tile * block_M : (q_tile + 1) * block_M, head, :], q_sh)
            T.fill(out, 0)
            T.fill(row_sum, 0)
            T.fill(row_max, -T.infinity(accum))
            steps = (T.min(T.ceildiv(seq_len, block_N), T.ceildiv((q_tile + 1) * block_M, block_N)) if is_causal
                     else T.ceildiv(seq_len, block_N))

            for kv in T.Pipelined(steps, num_stages=num_stages):
                T.copy(K[b, kv * block_N : (kv + 1) * block_N, kv_head, :], k_sh)
                if is_causal:  # scores start at 0 where the key may be seen, -inf where it may not
                    for i, j in T.Parallel(block_M, block_N):
                        scores[i, j] = T.if_then_else(q_tile * block_M + i >= kv * block_N + j, 0, -T.infinity(scores.dtype))
                else:
                    for i, j in T.Parallel(block_M, block_N):
                        scores[i, j] = T.if_then_else(kv * block_N + j >= seq_len, -T.infinity(scores.dtype), 0)
                T.gemm(q_sh, k_sh, scores, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

                T.copy(row_max, last_max)
                T.fill(row_max, -T.infinity(accum))
                T.reduce_max(scores, row_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    row_max[i] = T.max(row_max[i], last_max[i])
                for i in T.Parallel(block_M):
                    rescale[i] = T.exp2(last_max[i] * sm_scale - row_max[i] * sm_scale)
                for i, j in T.Parallel(block_M, block_N):
                    scores[i, j] = T.exp2(scores[i, j] * sm_scale - row_max[i] * sm_scale)
                T.reduce_sum(scores, step_sum, dim=1)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * rescale[i] + step_sum[i]
                T.copy(scores, probs)
                for i, j in T.Parallel(block_M, dim):
                    out[i, j] *= rescale[i]

                T.copy(V[b, kv * block_N : (kv + 1) * block_N, kv_head, :], v_sh)
                T.gemm(probs, v_sh, out, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                out[i, j] /= row_sum[i]
            T.copy(out, o_sh)
            T.copy(o_sh, Output[b, q_tile * block_M : (q_tile + 1) * block_M, head, :])

    return main


def ref_program(Q, K, V, is_causal, groups=1):
    """Attention in torch: each K/V head repeated for its ``groups`` query heads, BSHD in and out."""
    heads = Q.size(2)
    if heads != K.size(2) * groups or heads != V.size(2) * groups:
        raise ValueError(f"{heads} query heads are not {groups} per K/V head ({K.size(2)}, {V.size(2)})")
    keys, values = K.repeat_interleave(groups, dim=2), V.repeat_interleave(groups, dim=2)
    scores = torch.einsum("bqhd,bkhd->bhqk", Q, keys) / torch.sqrt(torch.tensor(Q.size(-1), dtype=Q.dtype))
    if is_causal:
        seen = torch.ones(Q.size(1), Q.size(1), device=scores.device).tril()
        scores = scores.masked_fill(seen == 0, float("-inf"))
    return torch.einsum("bhqk,bkhd->bqhd", F.softmax(scores, dim=-1), values)
