"""Top-k gate on Ascend (expert indices of each token's k best scores) by a SIMD selection loop: after tilelang examples/ascend/example_simdvf_topk_gate.py.

Our own code with that file's public functions (``topk_gate(num_experts, num_topk)``,
``ref_program``).  The token count stays ``T.dynamic("num_tokens")``: one kernel serves every
batch.  64 cores take tokens round-robin in a six-stage pipeline; a token's scores (at most
256) are copied into a UB window whose tail holds -inf, then held in four 64-lane registers
beside their column numbers.  Each of the k rounds: the largest score across the four
registers, broadcast; the smallest column holding it (ties go to the lower expert, as
torch.topk); that column stored as the next index and its score set to -inf.
"""

import tilelang.ascend.language as T
import torch
from tilelang.ascend.language import simd as S

CORES = 64
WINDOW = 256  # the most experts a token may have
STAGES = 6
LANES = 64  # fp32 lanes of one register
REGS = WINDOW // LANES


def topk_gate(num_experts: int, num_topk: int, backend="asc"):
    """The PrimFunc: (scores [tokens, num_experts] fp32) -> topk_idx [tokens, num_topk] int32."""
    if num_experts > WINDOW:
        raise ValueError(f"num_experts {num_experts} is over the {WINDOW} this kernel holds in registers")
    idx_slots = -(-num_topk // 8) * 8  # the UB index buffer rounded up to 32 bytes
    tokens = T.dynamic("num_tokens")

    @T.prim_func
    def main(scores: T.Tensor((tokens, num_experts), T.float32), topk_idx: T.Tensor((tokens, num_topk), T.int32)):
        with T.Kernel(CORES) as core:
            window = T.alloc_shared((WINDOW,), T.float32)
            chosen = T.alloc_shared((idx_slots,), T.int32)
            T.annotate_buffer_versions({window: STAGES, chosen: STAGES})
            if num_experts < WINDOW:  # the columns past the experts never win
                with T.SimdVF():
                    T.fill(window, -T.infinity(T.float32))
            for step in T.Pipelined(T.ceildiv(tokens, CORES), num_stages=STAGES):
                token = step * CORES + core
                if token < tokens:
                    # a row of num_experts fp32 values need not end on 32 bytes: the copy pads its tail with -inf
                    T.copy(scores[token, :], window[:num_experts], pad_value=-T.infinity(T.float32))
                    with T.SimdVF():
                        vals = T.simd.alloc_local((REGS), "float32")
                        cols = T.simd.alloc_local((REGS), "int32")
                        all_lanes = S.pset(32, "PAT_ALL")
                        first_lane = S.pset(32, "PAT_VL1")
                        minus_inf = S.vdup(-T.infinity(T.float32), "float32", all_lanes)
                        no_column = S.vdup(T.max_value(T.int32), "int32", all_lanes)
                        for q in T.Unroll(REGS, explicit=True):
                            vals[q] = S.vld(window[q * LANES])
                            cols[q] = S.vci(T.int32(q * LANES), "int32")
                        for k in range(num_topk):
                            pair_01 = S.vmax(vals[0], vals[1], all_lanes)
                            pair_23 = S.vmax(vals[2], vals[3], all_lanes)
                            lane_best = S.vmax(pair_01, pair_23, all_lanes)
                            best = S.vdupv(S.vcmax(lane_best, all_lanes), all_lanes)
                            hit_0 = S.vsel(cols[0], no_column, S.vcmp(vals[0], best, all_lanes, "eq"))
                            hit_1 = S.vsel(cols[1], no_column, S.vcmp(vals[1], best, all_lanes, "eq"))
                            hit_2 = S.vsel(cols[2], no_column, S.vcmp(vals[2], best, all_lanes, "eq"))
                            hit_3 = S.vsel(cols[3], no_column, S.vcmp(vals[3], best, all_lanes, "eq"))
                            low_01 = S.vmin(hit_0, hit_1, all_lanes)
                            low_23 = S.vmin(hit_2, hit_3, all_lanes)
                            lane_low = S.vmin(low_01, low_23, all_lanes)
                            winner = S.vdupv(S.vcmin(lane_low, all_lanes), all_lanes)
                            S.vsts(chosen[k], winner, first_lane, "ONEPT_B32")
                            for q in T.Unroll(REGS, explicit=True):
                                vals[q] = S.vsel(minus_inf, vals[q], S.vcmp(cols[q], winner, all_lanes, "eq"))
                    T.copy(chosen[:num_topk], topk_idx[token, :])

    return main


def ref_program(scores: torch.Tensor, num_topk: int) -> torch.Tensor:
    """torch's indices of the k largest scores per token (largest first, ties to the lower index), int32."""
    return torch.topk(scores, num_topk, dim=-1, largest=True, sorted=True).indices.to(torch.int32)
