"""GEMM with M, N and K all symbolic (one kernel for every size): after tilelang examples/dynamic_shape/example_dynamic.py.

Our own code with that file's public function (``matmul_dynamic_mnk``, an eager
``@tilelang.jit`` whose tensors' dimensions are ``T.dynamic("m")``, ``"n"``, ``"k"``).  A
block owns a block_M x block_N tile of C; the grid is ``ceildiv`` of the symbolic sizes; the
pipelined K loop copies the A and B tiles (each stored transposed or not) into shared
memory and accumulates their product in a register fragment.
"""

import tilelang
import tilelang.language as T


@tilelang.jit
def matmul_dynamic_mnk(A, B, block_M, block_N, block_K, trans_A, trans_B, in_dtype, out_dtype, accum_dtype,
                       num_stages, threads):
    """C (m x n) = op(A) @ op(B), op a transpose where trans_A / trans_B say A is k x m, B n x k."""
    M, N, K = T.dynamic("m"), T.dynamic("n"), T.dynamic("k")
    A: T.Tensor((K, M) if trans_A else (M, K), in_dtype)
    B: T.Tensor((N, K) if trans_B else (K, N), in_dtype)
    C = T.empty((M, N), out_dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (col_tile, row_tile):
        a_tile = T.alloc_shared((block_K, block_M) if trans_A else (block_M, block_K), in_dtype)
        b_tile = T.alloc_shared((block_N, block_K) if trans_B else (block_K, block_N), in_dtype)
        acc = T.alloc_fragment((block_M, block_N), accum_dtype)
        top, left = row_tile * block_M, col_tile * block_N

        T.clear(acc)
        for kt in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            depth = kt * block_K
            if trans_A:
                T.copy(A[depth, top], a_tile)
            else:
                T.copy(A[top, depth], a_tile)
            if trans_B:
                T.copy(B[left, depth], b_tile)
            else:
                T.copy(B[depth, left], b_tile)
            T.gemm(a_tile, b_tile, acc, trans_A, trans_B)
        T.copy(acc, C[top, left])

    return C
