"""Small tilelang bodies the suite-shape corpus (tests/test_suite_shapes.py) declares in the
ways users write suites: written for these tests, one op each, CUDA and Ascend dialects.

- ``vec_sum_2d`` / ``vec_sum_1d``: Z = X + Y over an M x N grid; the CUDA body tiles it in 2-D
  (block_M, block_N, threads), the Ascend body walks M*N values in UB chunks (``mode``: how
  many SIMT threads share a chunk).
- ``row_best_cuda`` / ``row_best_ascend``: per row, the largest value and its column (an int32
  output: judged exactly), one row to a thread, a serial scan over the columns.
- ``scaled_sum``: alpha * X + Y with its dtype and alpha as constants.
- ``tuned_shift``: ``@autotune`` over a lazy ``@tilelang.jit`` (Y = X + 1), as upstream
  tunes a body; tlbench sweeps the axes itself.
"""

import tilelang
import tilelang.language as T
import tilelang.ascend.language as TA
from tilelang.autotuner import autotune

CHUNK = 2048  # values of one Ascend UB chunk
SIMT_THREADS = {"narrow": 128, "wide": 512}


def vec_sum_2d(M, N, block_M, block_N, threads):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32"), Z: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (col0, row0):
            for r, c in T.Parallel(block_M, block_N):
                row, col = row0 * block_M + r, col0 * block_N + c
                Z[row, col] = X[row, col] + Y[row, col]
    return main


def vec_sum_1d(M, N, mode):
    total = M * N

    @TA.prim_func
    def main(X: TA.Tensor((total,), "float32"), Y: TA.Tensor((total,), "float32"), Z: TA.Tensor((total,), "float32")):
        with TA.Kernel(total // CHUNK) as part:
            lhs = TA.alloc_shared((CHUNK,), "float32")
            rhs = TA.alloc_shared((CHUNK,), "float32")
            TA.copy(X[part * CHUNK : (part + 1) * CHUNK], lhs)
            TA.copy(Y[part * CHUNK : (part + 1) * CHUNK], rhs)
            with TA.SimtVF(threads=SIMT_THREADS[mode]):
                for k in TA.Parallel(CHUNK):
                    lhs[k] = lhs[k] + rhs[k]
            TA.copy(lhs, Z[part * CHUNK : (part + 1) * CHUNK])
    return main


def row_best_cuda(M, N, rows, threads):
    @T.prim_func
    def main(S: T.Tensor((M, N), "float32"), Best: T.Tensor((M,), "float32"), Where: T.Tensor((M,), "int32")):
        with T.Kernel(T.ceildiv(M, rows), threads=threads) as blk:
            top = T.alloc_local((1,), "float32")
            at = T.alloc_local((1,), "int32")
            for r in T.Parallel(rows):
                top[0] = S[blk * rows + r, 0]
                at[0] = 0
                for c in T.serial(1, N):
                    if S[blk * rows + r, c] > top[0]:
                        top[0] = S[blk * rows + r, c]
                        at[0] = c
                Best[blk * rows + r] = top[0]
                Where[blk * rows + r] = at[0]
    return main


def row_best_ascend(M, N, mode):
    rows = 8

    @TA.prim_func
    def main(S: TA.Tensor((M * N,), "float32"), Best: TA.Tensor((M,), "float32"), Where: TA.Tensor((M,), "int32")):
        with TA.Kernel(M // rows) as blk:
            tile = TA.alloc_shared((rows * N,), "float32")
            top = TA.alloc_shared((rows,), "float32")
            at = TA.alloc_shared((rows,), "int32")
            TA.copy(S[blk * rows * N : (blk + 1) * rows * N], tile)
            with TA.SimtVF(threads=SIMT_THREADS[mode]):
                for r in TA.Parallel(rows):
                    top[r] = tile[r * N]
                    at[r] = 0
                    for c in TA.serial(1, N):
                        if tile[r * N + c] > top[r]:
                            top[r] = tile[r * N + c]
                            at[r] = c
            TA.copy(top, Best[blk * rows : (blk + 1) * rows])
            TA.copy(at, Where[blk * rows : (blk + 1) * rows])
    return main


def scaled_sum(M, N, block_M, block_N, threads, dtype, alpha):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype), Z: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (col0, row0):
            for r, c in T.Parallel(block_M, block_N):
                Z[row0 * block_M + r, col0 * block_N + c] = X[row0 * block_M + r, col0 * block_N + c] * alpha + Y[row0 * block_M + r, col0 * block_N + c]
    return main


@autotune(configs=[{"block_N": 256, "threads": 128}, {"block_N": 512, "threads": 256}], warmup=2, rep=5)
@tilelang.jit(out_idx=[-1])
def tuned_shift(N, block_N=256, threads=128):
    @T.prim_func
    def main(X: T.Tensor((N,), "float16"), Y: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as blk:
            for k in T.Parallel(block_N):
                Y[blk * block_N + k] = X[blk * block_N + k] + T.float16(1)
    return main
