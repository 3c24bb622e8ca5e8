"""Per-token cast to fp8 e4m3 on Ascend, a scale per 128 values, in SIMT or SIMD form: after tilelang examples/ascend/example_per_token_cast_to_fp8.py.

Our own code with that file's public functions (``per_token_cast_simt``,
``per_token_cast_simd``, ``per_token_cast_to_fp8(M, N, mode, target)``, ``ref_program``);
each returns the kernel compiled by a ``@tilelang.jit`` (outputs 1 and 2 allocated by it,
fast math on), as upstream does.
- SIMT: the M x N input seen as M * N / 128 groups of 128; tiles of 32, 64 or 128 groups
  (the largest that still gives every one of 64 cores work) handed to the cores in a
  persistent, two-stage pipeline; in UB a vector function of 1024 threads reduces each
  group's largest magnitude, divides and converts (the conversion saturates at +-448).  A
  thread holds two adjacent values of each 64-value half of a group's row, so a warp reads
  UB contiguously.
- SIMD: a tile of blk_m rows by group_block groups (group_block the largest of 64, 32, 16, 8
  dividing the groups of a row; blk_m = 128 / group_block); per group two 64-lane registers:
  absolute values, their maximum, at least 1e-4, over 448, then each half divided by it and
  converted to e4m3, stored four to a 32-bit lane.
"""

import torch
import tilelang
import tilelang.ascend.language as T
from tilelang.transform import PassConfigKey

GROUP = 128
E4M3_MAX = 448.0
AMAX_FLOOR = 0.0001
CORES = 64
STAGES = 2
FAST_MATH = {PassConfigKey.TL_ENABLE_FAST_MATH: True}


def _simt_thread(i, j):
    """The thread holding value (group i, column j) of a 128-group tile."""
    return (i % 32) * 32 + (j // 2) % 32


def _simt_slot(i, j):
    """Its place among that thread's values."""
    return (i // 32) * 4 + (j // 64) * 2 + j % 2


def per_token_cast_simt(M, N, target="ascend"):
    @tilelang.jit(out_idx=[1, 2], target=target, pass_configs=FAST_MATH)
    def _build():
        if M <= 0 or N <= 0 or M % 32 or N % GROUP:
            raise ValueError(f"the SIMT cast needs M % 32 == 0 and N % {GROUP} == 0, not M={M}, N={N}")
        groups = M * (N // GROUP)
        tile_groups = 32
        for wide in (128, 64):  # the widest tile that still leaves work for every core
            if groups >= CORES * wide and groups % wide == 0:
                tile_groups = wide
                break
        tiles = groups // tile_groups
        cores = min(CORES, tiles)

        @T.prim_func
        def per_token_cast(X: T.Tensor((M, N), T.float32), X_fp8: T.Tensor((M, N), T.float8_e4m3fn),
                           X_amax: T.Tensor((M, T.ceildiv(N, GROUP)), T.float32)):
            grouped_in = T.Tensor((groups, GROUP), T.float32, X.data)  # consecutive groups, rows included
            grouped_out = T.Tensor((groups, GROUP), T.float8_e4m3fn, X_fp8.data)
            grouped_scale = T.Tensor((groups,), T.float32, X_amax.data)
            with T.Kernel(cores) as core:
                for t in T.Persistent([tiles], cores, core, num_stages=STAGES):
                    in_ub = T.alloc_shared((tile_groups, GROUP), T.float32)
                    out_ub = T.alloc_shared((tile_groups, GROUP), T.float8_e4m3fn)
                    scale_ub = T.alloc_shared((tile_groups,), T.float32)
                    T.annotate_buffer_versions({in_ub: STAGES, out_ub: STAGES, scale_ub: STAGES})
                    T.copy(grouped_in[t * tile_groups : (t + 1) * tile_groups, :], in_ub)
                    with T.SimtVF(threads=1024):
                        vals = T.alloc_fragment((tile_groups, GROUP), T.float32)
                        mags = T.alloc_fragment((tile_groups, GROUP), T.float32)
                        peak = T.alloc_fragment((tile_groups,), T.float32)
                        scale = T.alloc_fragment((tile_groups,), T.float32)
                        quot = T.alloc_fragment((tile_groups, GROUP), T.float32)
                        quant = T.alloc_fragment((tile_groups, GROUP), T.float8_e4m3fn)
                        T.annotate_layout({vals: T.Fragment((tile_groups, GROUP), forward_thread_fn=_simt_thread,
                                                            forward_index_fn=_simt_slot)})
                        T.copy(in_ub, vals)
                        for g, c in T.Parallel(tile_groups, GROUP):
                            mags[g, c] = T.abs(vals[g, c])
                        T.reduce_max(mags, peak, dim=1)
                        for g in T.Parallel(tile_groups):
                            scale[g] = T.max(peak[g], AMAX_FLOOR) / E4M3_MAX
                        for g, c in T.Parallel(tile_groups, GROUP):
                            quot[g, c] = vals[g, c] / scale[g]
                        T.copy(quot, quant)  # saturating conversion
                        T.copy(scale, scale_ub)
                        T.copy(quant, out_ub)
                    T.copy(scale_ub, grouped_scale[t * tile_groups : (t + 1) * tile_groups])
                    T.copy(out_ub, grouped_out[t * tile_groups : (t + 1) * tile_groups, :])

        return per_token_cast

    return _build()


def _simd_tiling(M, N):
    """(group_block, blk_m, tile_n) of the SIMD form, or a ValueError saying what it needs."""
    groups = -(-N // GROUP)
    group_block = next((g for g in (64, 32, 16, 8) if groups >= g and groups % g == 0), None)
    if group_block is None:
        raise ValueError(f"the SIMD cast needs ceildiv(N, {GROUP}) to be a multiple of 8, not N={N}")
    blk_m = GROUP // group_block
    if M % blk_m or N % GROUP:
        raise ValueError(f"the SIMD cast needs M % {blk_m} == 0 and N % {GROUP} == 0, not M={M}, N={N}")
    return group_block, blk_m, GROUP * group_block


def per_token_cast_simd(M, N, target="ascend"):
    group_block, blk_m, tile_n = _simd_tiling(M, N)
    half = GROUP // 2
    row_groups = -(-N // GROUP)

    @tilelang.jit(out_idx=[1, 2], target=target, pass_configs=FAST_MATH)
    def _build():
        @T.prim_func
        def per_token_cast(X: T.Tensor((M, N), T.float32), X_fp8: T.Tensor((M, N), T.float8_e4m3fn),
                           X_amax: T.Tensor((M, T.ceildiv(N, GROUP)), T.float32)):
            with T.Kernel(CORES) as core:
                for rb, cb in T.Persistent([T.ceildiv(M, blk_m), T.ceildiv(row_groups, group_block)], CORES, core,
                                           group_size=T.ceildiv(row_groups, group_block), num_stages=STAGES):
                    in_ub = T.alloc_shared((blk_m, tile_n), T.float32)
                    out_ub = T.alloc_shared((blk_m, tile_n), T.float8_e4m3fn)
                    scale_ub = T.alloc_shared((blk_m, group_block), T.float32)
                    T.annotate_buffer_versions({in_ub: STAGES, out_ub: STAGES, scale_ub: STAGES})
                    T.copy(X[rb * blk_m : (rb + 1) * blk_m, cb * tile_n : (cb + 1) * tile_n], in_ub)
                    # latency: the cycles of one call of this vector function (the largest over group_block 8..64,
                    # CANN 9.2 simulator, one AIV), so the scheduler can overlap it with the copies;
                    with T.SimdVF(latency=1873):  # every register a named value: bisheng takes no temporaries
                        floor_reg = T.simd.vdup(AMAX_FLOOR, "float32")
                        top_reg = T.simd.vdup(E4M3_MAX, "float32")
                        for r in range(blk_m):
                            for g in range(group_block):
                                lo = T.simd.vld(in_ub[r, g * GROUP])
                                hi = T.simd.vld(in_ub[r, g * GROUP + half])
                                lo_abs = T.simd.vabs(lo)
                                hi_abs = T.simd.vabs(hi)
                                lane_peak = T.simd.vmax(lo_abs, hi_abs)
                                row_peak = T.simd.vcmax(lane_peak)
                                peak = T.simd.vmax(row_peak, floor_reg)
                                scale = T.simd.vdiv(peak, top_reg)
                                scale_all = T.simd.vdupv(scale)
                                T.simd.vsts(scale_ub[r, g], scale, dist="ONEPT_B32")
                                lo_q = T.simd.vdiv(lo, scale_all)
                                lo_fp8 = T.simd.vcvt(lo_q, "float8_e4m3fn")
                                T.simd.vsts(out_ub[r, g * GROUP], lo_fp8, dist="PK4_B32")
                                hi_q = T.simd.vdiv(hi, scale_all)
                                hi_fp8 = T.simd.vcvt(hi_q, "float8_e4m3fn")
                                T.simd.vsts(out_ub[r, g * GROUP + half], hi_fp8, dist="PK4_B32")
                    T.copy(scale_ub, X_amax[rb * blk_m : (rb + 1) * blk_m, cb * group_block : (cb + 1) * group_block])
                    T.copy(out_ub, X_fp8[rb * blk_m : (rb + 1) * blk_m, cb * tile_n : (cb + 1) * tile_n])

        return per_token_cast

    return _build()


def per_token_cast_to_fp8(M, N, mode="simd", target="ascend"):
    """The compiled cast of an M x N fp32 tensor, in ``mode`` 'simd' or 'simt'."""
    builders = {"simd": per_token_cast_simd, "simt": per_token_cast_simt}
    if mode not in builders:
        raise ValueError(f"mode must be 'simd' or 'simt', not {mode!r}")
    return builders[mode](M, N, target=target)


def ref_program(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The same cast in torch: (e4m3 values, scales)."""
    rows, cols = x.shape
    groups = torch.nn.functional.pad(x, (0, -cols % GROUP)).view(rows, -1, GROUP)
    peak = groups.abs().float().amax(dim=2).clamp(min=AMAX_FLOOR)
    values = (groups * (E4M3_MAX / peak.unsqueeze(2))).to(torch.float8_e4m3fn).view(rows, -1)[:, :cols].contiguous()
    return values, peak / E4M3_MAX
