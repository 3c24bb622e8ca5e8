"""An explicitly warp-specialized Hopper flash-attention forward (sm_90a only).

Contract: ``build_hopper_ws_fa(problem, config, overlap=True, pingpong=False)`` returns a
``PrimFunc`` with the shared body's signature and layout, its schedule written by hand (the
structure FlashAttention-3 describes): two consumer warp groups and a TMA producer; ``overlap``
runs the softmax under the PV wgmma (``wgmma.wait_group 1``); ``pingpong`` makes the consumer
groups take turns issuing (named barriers 8 and 9).  With ``num_cores`` (non-causal), that many
blocks walk the query tiles (bid, bid + num_cores, ...): the K/V pipeline and the turns run on
across a block's tiles, the producer loads the next Q once the last QK wgmma has read Q_s, and O
leaves straight from registers.  block_M is 128; refusals: validation.py.
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc annotations.
import math

import tilelang.language as T

from .hopper import online_softmax
from .validation import WS_CONSUMER_THREADS as CONSUMER_THREADS
from .validation import WS_PRODUCER_THREADS as PRODUCER_THREADS
from .validation import hopper_ws_refusal

from .problem import FaConfig, FaProblem

LOG2E = math.log2(math.e)
PINGPONG_BARRIER = 8  # named barriers 8 and 9 (tilelang's own syncs use the low ids)


def build_hopper_ws_fa(problem: FaProblem, config: FaConfig, overlap: bool = True, pingpong: bool = False):
    reason = hopper_ws_refusal(problem, config)
    if reason:
        raise ValueError(reason)
    D, BM, BN, ST = problem.dim, config.block_M, config.block_N, config.num_stages
    dtype, accum, out_dtype = problem.dtype, problem.accum_dtype, problem.output_dtype
    m_tiles, n = problem.seq_q // BM, -(-problem.seq_k // BN)
    causal = problem.causal
    ragged = problem.seq_k % BN != 0  # the last key tile is partial: TMA zero-fills past the tensor, the mask does the rest
    stage_in_q = out_dtype == dtype  # O leaves through Q's shared tile (free once the last S wgmma is done)
    heads, kv_heads, group, seq_k = problem.heads, problem.num_kv_heads, problem.group_size, problem.seq_k
    q_rows = problem.batch * heads * problem.seq_q
    kv_rows = problem.batch * kv_heads * seq_k
    c = problem.sm_scale * LOG2E
    full_row = T.GemmWarpPolicy.FullRow
    PB = PINGPONG_BARRIER
    s_regs, o_regs = BM * BN // CONSUMER_THREADS, BM * D // CONSUMER_THREADS  # fp32 registers per consumer thread
    tiles = problem.batch * heads * m_tiles
    persistent = config.num_cores is not None  # num_cores blocks walk the query tiles, bid, bid + grid, ...
    grid = config.num_cores if persistent else tiles

    def at(base, k):
        """Key tile k's place in the block's K/V pipeline: k, or after ``base`` earlier ones (persistent)."""
        return k if base is None else base + k

    @T.macro
    def turn_begin(wg):
        if pingpong:
            T.sync_threads(PB + wg, CONSUMER_THREADS)

    @T.macro
    def turn_end(wg):
        if pingpong:
            T.named_barrier_arrive(PB + 1 - wg, CONSUMER_THREADS)

    @T.macro
    def causal_mask(S, q_first, k_first):
        for i, j in T.Parallel(BM, BN):
            S[i, j] = T.if_then_else(q_first + i >= k_first + j, S[i, j], -T.infinity(accum))

    @T.macro
    def step(k, wg, masked, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile, k_full, v_full, k_empty, v_empty, q_first=None,
             base=None, q_empty=None, release_q=None):
        """Issue S = Q K_{k+1}^T and O += P_k V_k, softmax tile k+1 while the PV wgmma runs.
        ``masked``: the partial last key tile's columns; ``q_first`` (causal): the diagonal;
        persistent: ``base`` the block's K/V count before this query tile, Q_s handed back to the
        producer once the last QK wgmma is done (``release_q``)."""
        T.barrier_wait(k_full[at(base, k + 1) % ST], ((at(base, k + 1) // ST) & 1))
        turn_begin(wg)
        T.wgmma_gemm(Q_s, K_s[at(base, k + 1) % ST, :, :], S, transpose_B=True, policy=full_row, clear_accum=True)
        if not overlap:
            T.wait_wgmma(0)
        T.barrier_wait(v_full[at(base, k) % ST], ((at(base, k) // ST) & 1))
        T.wgmma_gemm(P, V_s[at(base, k) % ST, :, :], O_acc, policy=full_row)
        turn_end(wg)
        T.wait_wgmma(1 if overlap else 0)
        T.warpgroup_fence_operand(S, num_regs=s_regs)
        T.barrier_arrive(k_empty[at(base, k + 1) % ST])
        if release_q is not None:
            if release_q:
                T.barrier_arrive(q_empty)
        if masked:
            for i, j in T.Parallel(BM, BN):
                S[i, j] = T.if_then_else((k + 1) * BN + j < seq_k, S[i, j], -T.infinity(accum))
        if q_first is not None:
            causal_mask(S, q_first, (k + 1) * BN)
        online_softmax(S, m, m_prev, alpha, l, l_tile, c)
        if overlap:
            T.wait_wgmma(0)
        T.warpgroup_fence_operand(O_acc, num_regs=o_regs)
        T.barrier_arrive(v_empty[at(base, k) % ST])
        for i, j in T.Parallel(BM, D):
            O_acc[i, j] *= alpha[i]
        T.copy(S, P)

    def key_tiles(bx):
        """Key tiles query tile ``bx % m_tiles`` reads: all of them, or causal, up to its diagonal."""
        return T.ceildiv((bx % m_tiles + 1) * BM, BN) if causal else n

    @T.macro
    def load_tile(Q, K, V, bx, t, base, Q_s, K_s, V_s, q_full, q_empty, k_full, v_full, k_empty, v_empty):
        """The producer's TMA loads for query tile ``bx``: Q once Q_s is free (persistent), then K and V."""
        bh = bx // m_tiles
        kv_row = (bh // heads * kv_heads + bh % heads // group) * seq_k
        if persistent:
            T.barrier_wait(q_empty, (t & 1) ^ 1)
        T.tma_copy(Q[bx * BM : bx * BM + BM, :], Q_s, barrier=q_full)
        T.barrier_arrive(q_full)
        for k in T.serial(key_tiles(bx)):
            T.barrier_wait(k_empty[at(base, k) % ST], ((at(base, k) // ST) & 1) ^ 1)
            T.tma_copy(K[kv_row + k * BN : kv_row + k * BN + BN, :], K_s[at(base, k) % ST, :, :], barrier=k_full[at(base, k) % ST])
            T.barrier_arrive(k_full[at(base, k) % ST])
            T.barrier_wait(v_empty[at(base, k) % ST], ((at(base, k) // ST) & 1) ^ 1)
            T.tma_copy(V[kv_row + k * BN : kv_row + k * BN + BN, :], V_s[at(base, k) % ST, :, :], barrier=v_full[at(base, k) % ST])
            T.barrier_arrive(v_full[at(base, k) % ST])

    @T.macro
    def attend_tile(O, bx, t, base, last_tile, wg, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile,
                    q_full, q_empty, k_full, v_full, k_empty, v_empty):
        """One consumer warp group's 64 rows of query tile ``bx``; ``last_tile``: the block's last (persistent)."""
        T.fill(O_acc, 0)
        T.fill(l, 0)
        if pingpong:
            if t == 0:  # the block's first query tile: warp group 0 issues first
                if wg == 1:
                    T.named_barrier_arrive(PB, CONSUMER_THREADS)
        T.barrier_wait(q_full, t & 1)
        # tile 0: S only
        T.barrier_wait(k_full[at(base, 0) % ST], (at(base, 0) // ST) & 1)
        turn_begin(wg)
        T.wgmma_gemm(Q_s, K_s[at(base, 0) % ST, :, :], S, transpose_B=True, policy=full_row, clear_accum=True)
        turn_end(wg)
        T.wait_wgmma(0)
        T.warpgroup_fence_operand(S, num_regs=s_regs)
        T.barrier_arrive(k_empty[at(base, 0) % ST])
        if causal:
            causal_mask(S, bx % m_tiles * BM, 0)
        T.reduce_max(S, m, dim=1)
        for i, j in T.Parallel(BM, BN):
            S[i, j] = T.exp2(S[i, j] * c - m[i] * c)
        T.reduce_sum(S, l, dim=1)
        T.copy(S, P)
        if causal:  # S of tile k+1, PV of tile k: unmasked left of the tile's first row, then masked
            q_first = bx % m_tiles * BM
            for k in T.serial(T.max(q_first // BN - 1, 0)):
                step(k, wg, False, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile, k_full, v_full, k_empty, v_empty)
            for k in T.serial(T.max(q_first // BN - 1, 0), key_tiles(bx) - 1):
                step(k, wg, False, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile, k_full, v_full, k_empty, v_empty,
                     q_first)
        else:  # persistent: the last step hands Q_s back (release_q)
            for k in T.serial(n - 1 - int(ragged)):  # S of tile k+1, PV of tile k
                step(k, wg, False, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile, k_full, v_full, k_empty, v_empty,
                     None, base, q_empty, k == n - 2 if persistent else None)
            if ragged:  # the last key tile is partial: mask its columns
                step(n - 2, wg, True, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile, k_full, v_full, k_empty, v_empty,
                     None, base, q_empty, True if persistent else None)
        last = at(base, key_tiles(bx) - 1)  # last tile's PV
        T.barrier_wait(v_full[last % ST], ((last // ST) & 1))
        if pingpong:
            T.sync_threads(PB + wg, CONSUMER_THREADS)
        T.wgmma_gemm(P, V_s[last % ST, :, :], O_acc, policy=full_row)
        if pingpong:
            if persistent:  # the turns go on into the block's next query tile
                if wg == 0 or not last_tile:
                    T.named_barrier_arrive(PB + 1 - wg, CONSUMER_THREADS)
            elif wg == 0:  # warp group 1's last turn; nobody waits after it
                T.named_barrier_arrive(PB + 1, CONSUMER_THREADS)
        T.wait_wgmma(0)
        T.warpgroup_fence_operand(O_acc, num_regs=o_regs)
        T.barrier_arrive(v_empty[last % ST])
        for i, j in T.Parallel(BM, D):
            O_acc[i, j] /= l[i]
        if stage_in_q and not persistent:  # each warp group rewrites only the Q rows its own wgmmas read
            T.copy(O_acc, Q_s)
            T.copy(Q_s, O[bx * BM : bx * BM + BM, :])
        else:  # persistent: Q_s already holds the next query tile
            T.copy(O_acc, O[bx * BM : bx * BM + BM, :])

    @T.prim_func
    def main(Q: T.Tensor((q_rows, D), dtype), K: T.Tensor((kv_rows, D), dtype),
             V: T.Tensor((kv_rows, D), dtype), O: T.Tensor((q_rows, D), out_dtype)):
        with T.Kernel(grid, threads=CONSUMER_THREADS + PRODUCER_THREADS) as bid:
            Q_s = T.alloc_shared((BM, D), dtype)
            K_s = T.alloc_shared((ST, BN, D), dtype)
            V_s = T.alloc_shared((ST, BN, D), dtype)
            S = T.alloc_fragment((BM, BN), accum)
            P = T.alloc_fragment((BM, BN), dtype)
            O_acc = T.alloc_fragment((BM, D), accum)
            tx = T.get_thread_binding()
            m = T.alloc_fragment((BM,), accum)
            m_prev = T.alloc_fragment((BM,), accum)
            alpha = T.alloc_fragment((BM,), accum)
            l = T.alloc_fragment((BM,), accum)
            l_tile = T.alloc_fragment((BM,), accum)
            q_full = T.alloc_barrier(arrive_count=PRODUCER_THREADS)
            k_full = T.alloc_barrier(arrive_count=[PRODUCER_THREADS] * ST)
            v_full = T.alloc_barrier(arrive_count=[PRODUCER_THREADS] * ST)
            k_empty = T.alloc_barrier(arrive_count=[CONSUMER_THREADS] * ST)
            v_empty = T.alloc_barrier(arrive_count=[CONSUMER_THREADS] * ST)
            q_empty = T.alloc_barrier(arrive_count=CONSUMER_THREADS) if persistent else None

            if tx >= CONSUMER_THREADS:  # producer warp group: TMA only
                T.set_max_nreg(24, 0)
                if persistent:
                    for t in T.serial(T.ceildiv(tiles - bid, grid)):
                        load_tile(Q, K, V, bid + t * grid, t, t * n, Q_s, K_s, V_s, q_full, q_empty, k_full, v_full, k_empty, v_empty)
                else:
                    load_tile(Q, K, V, bid, 0, None, Q_s, K_s, V_s, q_full, q_empty, k_full, v_full, k_empty, v_empty)
            else:  # two consumer warp groups, 64 rows each
                T.set_max_nreg(240, 1)
                wg = tx // 128
                if persistent:
                    for t in T.serial(T.ceildiv(tiles - bid, grid)):
                        attend_tile(O, bid + t * grid, t, t * n, t == T.ceildiv(tiles - bid, grid) - 1, wg, Q_s, K_s, V_s, S, P, O_acc,
                                    m, m_prev, alpha, l, l_tile, q_full, q_empty, k_full, v_full, k_empty, v_empty)
                else:
                    attend_tile(O, bid, 0, None, True, wg, Q_s, K_s, V_s, S, P, O_acc, m, m_prev, alpha, l, l_tile,
                                q_full, q_empty, k_full, v_full, k_empty, v_empty)

    return main
