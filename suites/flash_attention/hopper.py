"""The target-specific NVIDIA flash-attention forward: the reference the shared body is
measured against ("what portability costs").

Contract: ``build_hopper_fa(problem, config)`` returns a ``PrimFunc`` with the shared body's
signature and layout: tilelang's examples/flash_attention algorithm, O rescaled *inside* the PV
accumulator (only a target whose vector side can touch it can do that).  Only ``auto``.
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc annotations.
import math

import tilelang.language as T

from .body import validate

from .problem import FaConfig, FaProblem

LOG2E = math.log2(math.e)


@T.macro
def online_softmax(S, m, m_prev, alpha, l, l_tile, log2_scale):
    """One KV tile's online-softmax step on the score tile S (in place, S becomes exp2 of the
    scaled scores): the running row max m (previous in m_prev), the rescale factor alpha of
    what was accumulated before, and the running row sum l.  The caller rescales O by alpha.
    Shared by both Hopper bodies (hopper_ws.py calls it too)."""
    T.copy(m, m_prev)
    T.reduce_max(S, m, dim=1, clear=False)
    for i in T.Parallel(m.shape[0]):
        alpha[i] = T.exp2(m_prev[i] * log2_scale - m[i] * log2_scale)
    for i, j in T.Parallel(S.shape[0], S.shape[1]):
        S[i, j] = T.exp2(S[i, j] * log2_scale - m[i] * log2_scale)
    T.reduce_sum(S, l_tile, dim=1)
    for i in T.Parallel(l.shape[0]):
        l[i] = l[i] * alpha[i] + l_tile[i]


def build_hopper_fa(problem: FaProblem, config: FaConfig):
    validate(problem, config)
    if config.loop_form != "auto":
        raise ValueError(f"the hopper body pipelines with num_stages only; loop_form={config.loop_form!r} is the shared body's")
    if config.num_cores is not None:
        raise ValueError("the hopper body launches one block per query tile; num_cores is the shared body's")
    D, BM, BN = problem.dim, config.block_M, config.block_N
    dtype, accum, out_dtype = problem.dtype, problem.accum_dtype, problem.output_dtype
    m_tiles, kv_tiles = problem.seq_q // BM, problem.seq_k // BN
    heads, kv_heads, group, seq_k = problem.heads, problem.num_kv_heads, problem.group_size, problem.seq_k
    q_rows = problem.batch * heads * problem.seq_q
    kv_rows = problem.batch * kv_heads * seq_k
    log2_scale = problem.sm_scale * LOG2E
    num_stages = config.num_stages
    full_row = T.GemmWarpPolicy.FullRow

    @T.prim_func
    def main(Q: T.Tensor((q_rows, D), dtype), K: T.Tensor((kv_rows, D), dtype),
             V: T.Tensor((kv_rows, D), dtype), O: T.Tensor((q_rows, D), out_dtype)):
        with T.Kernel(problem.batch * heads * m_tiles, threads=config.threads) as bx:
            bh = bx // m_tiles
            kv_row = (bh // heads * kv_heads + bh % heads // group) * seq_k
            Q_s = T.alloc_shared((BM, D), dtype)
            K_s = T.alloc_shared((BN, D), dtype)
            V_s = T.alloc_shared((BN, D), dtype)
            O_s = T.alloc_shared((BM, D), out_dtype)
            S = T.alloc_fragment((BM, BN), accum)
            P = T.alloc_fragment((BM, BN), dtype)
            O_acc = T.alloc_fragment((BM, D), accum)
            T.copy(Q[bx * BM, 0], Q_s)
            m = T.alloc_fragment((BM,), accum)
            m_prev = T.alloc_fragment((BM,), accum)
            alpha = T.alloc_fragment((BM,), accum)
            l = T.alloc_fragment((BM,), accum)
            l_tile = T.alloc_fragment((BM,), accum)

            T.fill(O_acc, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(accum))
            for k in T.Pipelined(kv_tiles, num_stages=num_stages):
                T.copy(K[kv_row + k * BN, 0], K_s)
                T.clear(S)
                T.gemm(Q_s, K_s, S, transpose_B=True, policy=full_row)
                online_softmax(S, m, m_prev, alpha, l, l_tile, log2_scale)
                T.copy(S, P)
                for i, j in T.Parallel(BM, D):
                    O_acc[i, j] *= alpha[i]
                T.copy(V[kv_row + k * BN, 0], V_s)
                T.gemm(P, V_s, O_acc, policy=full_row)
            for i, j in T.Parallel(BM, D):
                O_acc[i, j] /= l[i]
            T.copy(O_acc, O_s)
            T.copy(O_s, O[bx * BM, 0])

    return main
