"""The GEMM kernel body of the built-in suites, written once for every target: ``C = A @ B^T`` (+ optional ReLU).

Contract: ``gemm_cuda(**sizes, **axes)`` / ``gemm_ascend(**sizes, **axes)`` return a TileLang
``PrimFunc`` for the problem and config suites/gemm/sweep.py describes; a ``Dialect`` supplies
what differs (language module, allocators, the fused epilogue).  What makes one body lower on
both: a 1-D grid (Ascend never sets ``blockIdx.y``), ``transpose_B=True`` (Ascend's L1 GEMM is NT
only), ``clear_accum=(k == 0)`` (no ``T.clear`` on ``shared.l0c``) and the accumulator copied
straight to global memory.  The tile order is suites/gemm/raster.py's.
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc parameter
# annotations (T.Tensor((M, K), dtype)) against this closure.
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Optional

from .raster import tile_origin

RELU_VECTOR_THREADS = 128  # Ascend: the SIMT threads of the Vector-core ReLU


@dataclass(frozen=True)
class Dialect:
    """Target-specific pieces of the one GEMM body."""

    name: str
    lang: ModuleType
    alloc_operand: Callable[..., Any]
    alloc_accum: Callable[..., Any]
    kernel_takes_threads: bool
    # (C_accum, C_global, m, n) -> emits the ReLU epilogue; a T.macro of the dialect.
    relu_epilogue: Optional[Callable[..., Any]] = None
    # (C_accum, C_global, m, n) -> stores the accumulator through an on-chip staging
    # buffer; None where the target has no such path (the plain store is used).
    staged_store: Optional[Callable[..., Any]] = None

    def kernel_kwargs(self, threads: int) -> dict:
        return {"threads": threads} if self.kernel_takes_threads else {}


def cuda_dialect() -> Dialect:
    import tilelang.language as T

    @T.macro
    def _relu_epilogue(C_accum, C, m, n):
        for i, j in T.Parallel(C_accum.shape[0], C_accum.shape[1]):
            C_accum[i, j] = T.max(C_accum[i, j], 0)
        T.copy(C_accum, C[m, n])

    @T.macro
    def _staged_store(C_accum, C, m, n):
        C_staging = T.alloc_shared((C_accum.shape[0], C_accum.shape[1]), C.dtype)
        T.copy(C_accum, C_staging)
        T.copy(C_staging, C[m, n])

    return Dialect("cuda", T, T.alloc_shared, T.alloc_fragment, True, relu_epilogue=_relu_epilogue, staged_store=_staged_store)


def ascend_dialect() -> Dialect:
    import tilelang.ascend.language as T

    @T.macro
    def _relu_epilogue(C_accum, C, m, n):
        C_ub = T.alloc_shared((C_accum.shape[0] // 2, C_accum.shape[1]), C_accum.dtype)
        T.dual_copy(C_accum, C_ub)
        with T.SimtVF(threads=RELU_VECTOR_THREADS):
            for i, j in T.Parallel(C_accum.shape[0] // 2, C_accum.shape[1]):
                C_ub[i, j] = T.max(C_ub[i, j], 0)
        T.dual_copy(C_ub, C[m : m + C_accum.shape[0], n : n + C_accum.shape[1]])

    return Dialect("ascend", T, T.alloc_l1, T.alloc_l0c, False, relu_epilogue=_relu_epilogue)


def gemm_cuda(**values):
    return build_gemm(cuda_dialect(), **values)


def gemm_ascend(**values):
    return build_gemm(ascend_dialect(), **values)


def _validate(M, N, K, block_M, block_N, block_K, group_m) -> None:
    for dim, size, block in (("M", M, block_M), ("N", N, block_N), ("K", K, block_K)):
        if size % block:
            raise ValueError(f"{dim}={size} is not a multiple of block_{dim}={block}: this body handles no partial tiles")
    tiles_M = M // block_M
    if group_m is not None and (group_m < 1 or tiles_M % group_m):
        raise ValueError(f"group_m={group_m} must divide the {tiles_M} tile rows (M / block_M)")


def build_gemm(dialect: Dialect, *, M, N, K, dtype="float16", accum_dtype="float32", out_dtype=None, epilogue=None,
               block_M, block_N, block_K, threads=128, loop_form="auto", num_stages=2, num_cores=None,
               enable_offset=False, group_m=None, stage_output=False):
    _validate(M, N, K, block_M, block_N, block_K, group_m)
    T = dialect.lang
    out_dtype = out_dtype or dtype
    tiles_N = N // block_N
    num_tiles = (M // block_M) * tiles_N
    k_tiles = K // block_K
    persistent = num_cores is not None
    grid = num_cores if persistent else num_tiles
    loop_annotations = {"enable_offset": True} if enable_offset else None
    relu = epilogue == "relu"
    if epilogue not in (None, "relu"):
        raise ValueError(f"unknown epilogue {epilogue!r}; known: relu")
    if relu and dialect.relu_epilogue is None:
        raise ValueError(f"dialect {dialect.name} has no ReLU epilogue")
    alloc_operand, alloc_accum = dialect.alloc_operand, dialect.alloc_accum
    relu_epilogue = dialect.relu_epilogue
    launch = dialect.kernel_kwargs(threads)
    staged = stage_output and dialect.staged_store is not None
    staged_store = dialect.staged_store

    @T.macro
    def reduce_tile(A, B, A_tile, B_tile, C_accum, m, n):
        if loop_form == "auto":
            for k in T.Pipelined(k_tiles, num_stages=num_stages, annotations=loop_annotations):
                T.copy(A[m, k * block_K], A_tile)
                T.copy(B[n, k * block_K], B_tile)
                T.gemm(A_tile, B_tile, C_accum, transpose_B=True, clear_accum=(k == 0))
        elif loop_form == "manual":
            for k in T.Pipelined(k_tiles, stage=[0, 0, 1], order=[0, 1, 2], annotations=loop_annotations):
                T.copy(A[m, k * block_K], A_tile)
                T.copy(B[n, k * block_K], B_tile)
                T.gemm(A_tile, B_tile, C_accum, transpose_B=True, clear_accum=(k == 0))
        else:
            for k in T.serial(k_tiles):
                T.copy(A[m, k * block_K], A_tile)
                T.copy(B[n, k * block_K], B_tile)
                T.gemm(A_tile, B_tile, C_accum, transpose_B=True, clear_accum=(k == 0))

    @T.macro
    def store_tile(C_accum, C, m, n):
        if relu:
            relu_epilogue(C_accum, C, m, n)
        elif staged:
            staged_store(C_accum, C, m, n)
        else:
            T.copy(C_accum, C[m, n])

    tile_row, tile_col = tile_origin(tiles_N, block_M, block_N, group_m)  # with group_m: panels of group_m tile rows

    @T.prim_func
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(grid, **launch) as bx:
            A_tile = alloc_operand((block_M, block_K), dtype)
            B_tile = alloc_operand((block_N, block_K), dtype)
            C_accum = alloc_accum((block_M, block_N), accum_dtype)
            if persistent:
                for tile in T.Persistent([num_tiles], grid, bx):
                    reduce_tile(A, B, A_tile, B_tile, C_accum, tile_row(tile), tile_col(tile))
                    store_tile(C_accum, C, tile_row(tile), tile_col(tile))
            else:
                reduce_tile(A, B, A_tile, B_tile, C_accum, tile_row(bx), tile_col(bx))
                store_tile(C_accum, C, tile_row(bx), tile_col(bx))

    return gemm
