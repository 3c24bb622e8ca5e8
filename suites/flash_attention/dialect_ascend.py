"""The Ascend 950 side of the one flash-attention body.

Q/K/V and P tiles in L1, S and O_tile in L0C, softmax state in UB split over the two AIV
sub-cores.  The Vector unit cannot read L0C, so each accumulator moves to UB with
``T.dual_copy`` (a whole-tile copy overflows UB).  The exponentials are SIMD
(``vexpdif(a, b) = exp(a - b)``): SimdVF's ``T.Parallel`` takes no ``exp`` and SimtVF's leaves the
KV loop vector-bound.  V is loaded transposed (the L1 Cube GEMM is NT only); ``S_vec`` is pinned
to one version (a multi-version reduce source fails inside SimdVF).
"""

from __future__ import annotations

import contextlib

import tilelang.ascend.language as T

from .body import FaDialect

S = T.simd
LANES = 64  # fp32 lanes of one vector register (2048 bits)


@T.macro
def _move(src, dst):
    T.dual_copy(src, dst)


@T.macro
def _load_v(V, row, V_tile):
    T.copy(V[row, 0], V_tile, transpose=True)


@T.macro
def _exp_diff(a, b, out, scale):
    with T.SimdVF():
        for c in range(0, out.shape[0], LANES):
            diff = S.vexpdif(S.vmuls(S.vld(a[c], "NORM"), T.float32(scale)), S.vmuls(S.vld(b[c], "NORM"), T.float32(scale)))
            S.vsts(out[c], diff)


@T.macro
def _exp_rows(S_vec, m, scale):
    with T.SimdVF():
        for r in T.serial(S_vec.shape[0]):
            row_max = S.vmuls(S.vld(m[r], "BRC_B32"), T.float32(scale))
            for c in range(0, S_vec.shape[1], LANES):
                S.vsts(S_vec[r, c], S.vexpdif(S.vmuls(S.vld(S_vec[r, c], "NORM"), T.float32(scale)), row_max))


@T.macro
def _store_output(O_vec, O, row):
    O_cast = T.alloc_shared((O_vec.shape[0], O_vec.shape[1]), O.dtype)
    with T.SimdVF():
        T.copy(O_vec, O_cast)
    T.dual_copy(O_cast, O[row : row + 2 * O_vec.shape[0], 0 : O_vec.shape[1]])


@T.macro
def _pin_versions(S_vec, num_stages):
    if num_stages is not None and num_stages >= 3:
        T.annotate_buffer_versions({S_vec: 1})


@contextlib.contextmanager
def _launch(grid, kwargs, vector_id):
    """``T.Kernel(n)``; where the body needs the vector sub-core id (the causal mask's row
    offset), ``T.MixedKernel(n)``, which binds it."""
    if vector_id:
        with T.MixedKernel(grid) as (bx, sid):
            yield bx, sid
    else:
        with T.Kernel(grid, **kwargs) as bx:
            yield bx, 0


ASCEND_FA_DIALECT = FaDialect(
    name="ascend", lang=T,
    alloc_operand=T.alloc_l1, alloc_p_operand=T.alloc_l1, alloc_accum=T.alloc_l0c,
    alloc_vector=T.alloc_shared,
    vector_units=2, kernel_takes_threads=False, vector_reads_accumulator=False, v_transposed=True,
    move=_move, load_v=_load_v, vector_region=T.SimdVF, exp_diff=_exp_diff, exp_rows=_exp_rows,
    store_output=_store_output, pin_versions=_pin_versions, launch=_launch, mask_region=T.SimtVF,
)
