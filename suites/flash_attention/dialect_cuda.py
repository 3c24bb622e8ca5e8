"""The CUDA side of the one flash-attention body: shared Q/K/V tiles, register fragments read in
place by the softmax, ``T.Kernel(..., threads=)``, V as it lies (an NN GEMM), and both
exponentials as ``exp2`` of a log2(e)-prescaled argument (one FMA per element).
"""

from __future__ import annotations

import contextlib
import math

import tilelang.language as T

from .body import FaDialect

LOG2E = math.log2(math.e)


@T.macro
def _move(src, dst):
    T.copy(src, dst)


@T.macro
def _load_v(V, row, V_tile):
    T.copy(V[row, 0], V_tile)


@T.macro
def _exp_diff(a, b, out, scale):
    for i in T.Parallel(out.shape[0]):
        out[i] = T.exp2(a[i] * (scale * LOG2E) - b[i] * (scale * LOG2E))


@T.macro
def _exp_rows(S, m, scale):
    for i, j in T.Parallel(S.shape[0], S.shape[1]):
        S[i, j] = T.exp2(S[i, j] * (scale * LOG2E) - m[i] * (scale * LOG2E))


@T.macro
def _store_output(O_vec, O, row):
    T.copy(O_vec, O[row, 0])


@T.macro
def _no_pins(S_vec, num_stages):
    pass


@contextlib.contextmanager
def _launch(grid, kwargs, vector_id):
    """``T.Kernel(grid, threads=)``; one vector unit (id 0) owns all of a tile's rows."""
    with T.Kernel(grid, **kwargs) as bx:
        yield bx, 0


CUDA_FA_DIALECT = FaDialect(
    name="cuda", lang=T,
    alloc_operand=T.alloc_shared, alloc_p_operand=T.alloc_fragment, alloc_accum=T.alloc_fragment,
    alloc_vector=T.alloc_fragment,
    vector_units=1, kernel_takes_threads=True, vector_reads_accumulator=True, v_transposed=False,
    move=_move, load_v=_load_v, vector_region=contextlib.nullcontext, exp_diff=_exp_diff,
    exp_rows=_exp_rows, store_output=_store_output, pin_versions=_no_pins, launch=_launch,
    mask_region=contextlib.nullcontext,
)
