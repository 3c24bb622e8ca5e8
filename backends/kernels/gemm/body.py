"""The GEMM kernel body, written once for every target: ``C = A @ B^T`` (+ optional ReLU).

Contract: ``build_gemm(problem, config, dialect)`` returns a TileLang ``PrimFunc``.  The body
(copy A, copy B, gemm in the reduction loop; the seed's three loop forms) is the same text
for NVIDIA and Ascend.  A ``Dialect`` supplies only what must differ between targets:
the language module (``T.Kernel`` with or without ``threads=``), the operand-tile allocator
(``alloc_shared`` on CUDA, ``alloc_l1`` on Ascend), the accumulator allocator
(``alloc_fragment`` / ``alloc_l0c``) and, for a fused epilogue, how the accumulator reaches
global memory.  What makes one body lower on both (observed with tilelang 0.1.15): a 1-D grid
(a 2-D grid lowers on Ascend but reads a ``blockIdx.y`` the 1-D NPU launch never sets),
``transpose_B=True`` (Ascend's L1 GEMM is NT only), ``clear_accum=(k == 0)`` instead of
``T.clear`` (unsupported on ``shared.l0c``), and the accumulator copied straight to global
memory; the generic ``alloc_shared`` + ``alloc_fragment`` pair does not lower on Ascend ("Cannot
assign task because its scalar/register inputs are unavailable on every legal execution core").
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc parameter
# annotations (T.Tensor((M, K), dtype)) against this closure.
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Optional

from tlbench.backends.kernels.gemm.problem import GemmConfig, GemmProblem
from tlbench.backends.kernels.gemm.raster import tile_origin


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

    def kernel_kwargs(self, config: GemmConfig) -> dict[str, int]:
        return {"threads": config.threads} if self.kernel_takes_threads else {}


def _validate(problem: GemmProblem, config: GemmConfig) -> None:
    for dim, block in (("M", config.block_M), ("N", config.block_N), ("K", config.block_K)):
        size = getattr(problem, dim)
        if size % block:
            raise ValueError(f"{dim}={size} is not a multiple of block_{dim}={block}: this body handles no partial tiles")
    tiles_M = problem.M // config.block_M
    if config.group_m is not None and (config.group_m < 1 or tiles_M % config.group_m):
        raise ValueError(f"group_m={config.group_m} must divide the {tiles_M} tile rows (M / block_M)")


def build_gemm(problem: GemmProblem, config: GemmConfig, dialect: Dialect):
    _validate(problem, config)
    T = dialect.lang
    M, N, K = problem.M, problem.N, problem.K
    block_M, block_N, block_K = config.block_M, config.block_N, config.block_K
    dtype, accum_dtype, out_dtype = problem.dtype, problem.accum_dtype, problem.output_dtype
    tiles_N = N // block_N
    num_tiles = (M // block_M) * tiles_N
    k_tiles = K // block_K
    num_stages = config.num_stages
    loop_form = config.loop_form
    persistent = config.num_cores is not None
    grid = config.num_cores if persistent else num_tiles
    loop_annotations = {"enable_offset": True} if config.enable_offset else None
    relu = problem.epilogue == "relu"
    if problem.epilogue not in (None, "relu"):
        raise ValueError(f"unknown epilogue {problem.epilogue!r}; known: relu")
    if relu and dialect.relu_epilogue is None:
        raise ValueError(f"dialect {dialect.name} has no ReLU epilogue")
    alloc_operand, alloc_accum = dialect.alloc_operand, dialect.alloc_accum
    epilogue = dialect.relu_epilogue
    launch = dialect.kernel_kwargs(config)
    group_m = config.group_m
    staged = config.stage_output and dialect.staged_store is not None
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
            epilogue(C_accum, C, m, n)
        elif staged:
            staged_store(C_accum, C, m, n)
        else:
            T.copy(C_accum, C[m, n])

    tile_row, tile_col = tile_origin(tiles_N, block_M, block_N, group_m)  # with group_m: panels of group_m tile rows

    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
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
