"""Multi-head latent attention decode (DeepSeek MLA: every query head reads one shared latent K/V head): after tilelang examples/deepseek_mla/example_mla_decode.py.

Our own code with that file's public functions (``flashattn`` under ``@tilelang.jit`` with
``out_idx=[4]`` and fast math, ``ref_program``).  One query token per batch row; the latent
cache ``KV`` [b, s, 1, dim] is both the key (with its rotary part ``K_pe``, pe_dim wide) and
the value.  A block owns block_H query heads of one batch row: a pipelined loop (2 stages)
over the cache in steps of block_N computes the scores Q KV^T + Q_pe K_pe^T (two GEMMs into
one accumulator), keeps an online softmax in base 2 (``softmax_scale`` folded into log2 e),
rescales the output and adds P KV.  With ``num_split`` > 1 the cache is cut into that many
parts, each block writes its partial output and log-sum-exp to global scratch, and a second
kernel in the same PrimFunc combines the parts by their log-sum-exp.
"""

import tilelang
import tilelang.language as T
import torch

LOG2_E = 1.44269504


@tilelang.jit(out_idx=[4], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn(batch, heads, kv_head_num, seqlen_kv, dim, pe_dim, block_N, block_H, num_split, softmax_scale):
    """The PrimFunc (Q [b, heads, dim], Q_pe [b, heads, pe_dim], KV [b, s, 1, dim], K_pe
    [b, s, 1, pe_dim], fp16) -> Output [b, heads, dim] fp16."""
    assert kv_head_num == 1, "kv_head_num must be 1"
    log2_scale = float(softmax_scale * LOG2_E)
    dtype, accum = T.float16, T.float32
    group = heads // kv_head_num
    rows = min(block_H, group)  # the query heads a block writes
    part = seqlen_kv // num_split  # the cache rows one split reads

    q_shape, q_pe_shape = [batch, heads, dim], [batch, heads, pe_dim]
    kv_shape, k_pe_shape = [batch, seqlen_kv, kv_head_num, dim], [batch, seqlen_kv, kv_head_num, pe_dim]

    @T.macro
    def load_queries(Q, Q_pe, Q_tile, Q_pe_tile, b, h):
        T.copy(Q[b, h * rows:(h + 1) * rows, :], Q_tile)
        T.copy(Q_pe[b, h * rows:(h + 1) * rows, :], Q_pe_tile)

    @T.macro
    def scores_to_weights(S_acc, m, m_prev, alpha, l_tile):
        """m = max(m_prev, rowmax S); alpha = 2^(scale (m_prev - m)); P = 2^(scale (S - m)) in
        place of S, and its row sums."""
        T.copy(m, m_prev)
        T.fill(m, -T.infinity(accum))
        T.reduce_max(S_acc, m, dim=1, clear=False)
        for i in T.Parallel(block_H):
            m[i] = T.max(m[i], m_prev[i])
        for i in T.Parallel(block_H):
            alpha[i] = T.exp2(m_prev[i] * log2_scale - m[i] * log2_scale)
        for i, j in T.Parallel(block_H, block_N):
            S_acc[i, j] = T.exp2(S_acc[i, j] * log2_scale - m[i] * log2_scale)
        T.reduce_sum(S_acc, l_tile, dim=1)

    @T.macro
    def rescale(l, alpha, l_tile, O_acc):
        """The running sum and the output so far, onto the new maximum."""
        for i in T.Parallel(block_H):
            l[i] = l[i] * alpha[i] + l_tile[i]
        for i, j in T.Parallel(block_H, dim):
            O_acc[i, j] *= alpha[i]

    @T.prim_func
    def main_split(Q: T.Tensor(q_shape, dtype), Q_pe: T.Tensor(q_pe_shape, dtype), KV: T.Tensor(kv_shape, dtype),
                   K_pe: T.Tensor(k_pe_shape, dtype), Output: T.Tensor(q_shape, dtype)):
        lse_parts = T.alloc_global([batch, heads, num_split], dtype)
        out_parts = T.alloc_global([batch, heads, num_split, dim], dtype)
        with T.Kernel(batch, heads // rows, num_split, threads=256) as (b, h, sp):
            Q_tile = T.alloc_shared([block_H, dim], dtype)
            S_tile = T.alloc_shared([block_H, block_N], dtype)
            Q_pe_tile = T.alloc_shared([block_H, pe_dim], dtype)
            KV_tile = T.alloc_shared([block_N, dim], dtype)
            K_pe_tile = T.alloc_shared([block_N, pe_dim], dtype)
            O_tile = T.alloc_shared([block_H, dim], dtype)
            S_acc = T.alloc_fragment([block_H, block_N], accum)
            P_frag = T.alloc_fragment([block_H, block_N], dtype)
            O_acc = T.alloc_fragment([block_H, dim], accum)
            m = T.alloc_fragment([block_H], accum)
            m_prev = T.alloc_fragment([block_H], accum)
            alpha = T.alloc_fragment([block_H], accum)
            l_tile = T.alloc_fragment([block_H], accum)
            l = T.alloc_fragment([block_H], accum)
            kv_head = h // (group // block_H)
            T.use_swizzle(10)
            load_queries(Q, Q_pe, Q_tile, Q_pe_tile, b, h)
            T.fill(O_acc, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(accum))
            for k in T.Pipelined(T.ceildiv(part, block_N), num_stages=2):
                first = part * sp + k * block_N
                T.copy(KV[b, first:first + block_N, kv_head, :], KV_tile)
                T.copy(K_pe[b, first:first + block_N, kv_head, :], K_pe_tile)
                T.clear(S_acc)
                T.gemm(Q_tile, KV_tile, S_acc, transpose_B=True, policy=T.GemmWarpPolicy.FullCol)
                T.gemm(Q_pe_tile, K_pe_tile, S_acc, transpose_B=True, policy=T.GemmWarpPolicy.FullCol)
                scores_to_weights(S_acc, m, m_prev, alpha, l_tile)
                T.copy(S_acc, S_tile)
                T.copy(S_tile, P_frag)
                rescale(l, alpha, l_tile, O_acc)
                T.gemm(P_frag, KV_tile, O_acc, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                O_acc[i, j] /= l[i]
            for i in T.Parallel(block_H):
                l[i] = T.log2(l[i]) + m[i] * log2_scale  # the part's log2-sum-exp
            T.copy(l, lse_parts[b, h * rows:(h + 1) * rows, sp])
            T.copy(O_acc, O_tile)
            T.copy(O_tile, out_parts[b, h * rows:(h + 1) * rows, sp, :])

        with T.Kernel(heads, batch, threads=128) as (h, b):
            part_row = T.alloc_fragment([dim], dtype)
            total = T.alloc_fragment([dim], accum)
            lse = T.alloc_var(accum)
            lse_sum = T.alloc_var(accum)
            lse_max = T.alloc_var(accum)
            weight = T.alloc_var(accum)
            T.clear(lse_sum)
            T.clear(total)
            lse_max = -T.infinity(accum)
            for sp in T.serial(num_split):
                lse_max = T.max(lse_max, lse_parts[b, h, sp])
            for sp in T.Pipelined(num_split, num_stages=1):
                lse = lse_parts[b, h, sp]
                lse_sum += T.exp2(lse - lse_max)
            lse_sum = T.log2(lse_sum) + lse_max
            for sp in T.serial(num_split):
                for i in T.Parallel(dim):
                    part_row[i] = out_parts[b, h, sp, i]
                lse = lse_parts[b, h, sp]
                weight = T.exp2(lse - lse_sum)
                for i in T.Parallel(dim):
                    total[i] += part_row[i] * weight
            for i in T.Parallel(dim):
                Output[b, h, i] = total[i]

    @T.prim_func
    def main_no_split(Q: T.Tensor(q_shape, dtype), Q_pe: T.Tensor(q_pe_shape, dtype), KV: T.Tensor(kv_shape, dtype),
                      K_pe: T.Tensor(k_pe_shape, dtype), Output: T.Tensor(q_shape, dtype)):
        with T.Kernel(heads // rows, batch, threads=256) as (h, b):
            Q_tile = T.alloc_shared([block_H, dim], dtype)
            S_tile = T.alloc_shared([block_H, block_N], dtype)
            Q_pe_tile = T.alloc_shared([block_H, pe_dim], dtype)
            KV_tile = T.alloc_shared([block_N, dim], dtype)
            K_pe_tile = T.alloc_shared([block_N, pe_dim], dtype)
            O_tile = T.alloc_shared([block_H, dim], dtype)
            S_acc = T.alloc_fragment([block_H, block_N], accum)
            O_acc = T.alloc_fragment([block_H, dim], accum)
            m = T.alloc_fragment([block_H], accum)
            m_prev = T.alloc_fragment([block_H], accum)
            alpha = T.alloc_fragment([block_H], accum)
            l_tile = T.alloc_fragment([block_H], accum)
            l = T.alloc_fragment([block_H], accum)
            kv_head = h // (group // block_H)
            load_queries(Q, Q_pe, Q_tile, Q_pe_tile, b, h)
            T.fill(O_acc, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(accum))
            for k in T.Pipelined(T.ceildiv(seqlen_kv, block_N), num_stages=2):
                T.copy(KV[b, k * block_N:(k + 1) * block_N, kv_head, :], KV_tile)
                T.copy(K_pe[b, k * block_N:(k + 1) * block_N, kv_head, :], K_pe_tile)
                T.gemm(Q_tile, KV_tile, S_acc, transpose_B=True, policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
                T.gemm(Q_pe_tile, K_pe_tile, S_acc, transpose_B=True, policy=T.GemmWarpPolicy.FullCol)
                scores_to_weights(S_acc, m, m_prev, alpha, l_tile)
                T.copy(S_acc, S_tile)
                rescale(l, alpha, l_tile, O_acc)
                T.gemm(S_tile, KV_tile, O_acc, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                O_acc[i, j] /= l[i]
            T.copy(O_acc, O_tile)
            T.copy(O_tile, Output[b, h * rows:(h + 1) * rows, :])

    return main_split if num_split > 1 else main_no_split


def ref_program(q, q_pe, kv, k_pe):
    """Softmax((Q ++ Q_pe)(KV ++ K_pe)^T / sqrt(dim + pe_dim)) KV in the inputs' dtype; query
    head i reads K/V head i // (heads / K/V heads).  The query heads of one K/V head are taken
    as a group against it (never a copy of the cache per query head)."""
    batch, heads, _ = q.shape
    kv_heads = kv.shape[2]
    query = torch.cat([q, q_pe], dim=-1).view(batch, kv_heads, heads // kv_heads, -1)  # [b, K/V heads, group, dim + pe_dim]
    key = torch.cat([kv, k_pe], dim=-1)  # [b, s, K/V heads, dim + pe_dim]
    scores = torch.einsum("bhgd,bshd->bhgs", query, key) / query.shape[-1] ** 0.5
    return torch.einsum("bhgs,bshd->bhgd", scores.softmax(dim=-1), kv).reshape(batch, heads, -1)
