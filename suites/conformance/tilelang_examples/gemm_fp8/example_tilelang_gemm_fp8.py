"""FP8 GEMM with an fp8 output, C = A @ B^T: after tilelang examples/gemm_fp8/example_tilelang_gemm_fp8.py.

Our own code with that file's public functions (``matmul``, ``calc_diff``).  A block of 128
threads owns a block_M x block_N tile of C; a three-stage pipelined K loop copies A's and
B's (stored N x K) tiles into shared memory and accumulates in ``accum_dtype``; the tile is
converted to the input's fp8 dtype on the way out.
"""

import tilelang
import tilelang.language as T


def calc_diff(x, y):
    """1 - 2xy / (x^2 + y^2) over the whole tensors, in double (0: identical)."""
    x, y = x.double(), y.double()
    return 1 - 2 * (x * y).sum() / (x * x + y * y).sum()


@tilelang.jit
def matmul(A, B, block_M, block_N, block_K, dtype, accum_dtype=T.float32):
    """C (M x N, ``dtype``) = A (M x K) @ B (N x K)^T."""
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((N, K), dtype)
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (col_tile, row_tile):
        a_tile = T.alloc_shared((block_M, block_K), dtype)
        b_tile = T.alloc_shared((block_N, block_K), dtype)
        acc = T.alloc_fragment((block_M, block_N), accum_dtype)

        T.clear(acc)
        for kt in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[row_tile * block_M, kt * block_K], a_tile)
            T.copy(B[col_tile * block_N, kt * block_K], b_tile)
            T.gemm(a_tile, b_tile, acc, transpose_B=True)
        T.copy(acc, C[row_tile * block_M, col_tile * block_N])

    return C
