"""Elementwise add, one (block_M x block_N) output tile per block: after tilelang examples/elementwise/example_elementwise_add.py.

Our own code with that file's public functions (``elementwise_add``, ``ref_program``), so a
suite runs against either.  Each block stages its two input tiles through shared memory, adds
them into a register fragment of the output dtype, and writes the sum back through shared
memory.
"""

import tilelang
import tilelang.language as T


def ref_program(x, y):
    """What the kernel computes."""
    return x + y


@tilelang.jit
def elementwise_add(A, B, block_M, block_N, in_dtype, out_dtype, threads):
    """``C = A + B`` for M x N tensors (M and N bound from the tensors given)."""
    rows, cols = T.const("M, N")
    A: T.Tensor((rows, cols), in_dtype)
    B: T.Tensor((rows, cols), in_dtype)
    C = T.empty((rows, cols), out_dtype)

    with T.Kernel(T.ceildiv(cols, block_N), T.ceildiv(rows, block_M), threads=threads) as (tile_col, tile_row):
        top, left = tile_row * block_M, tile_col * block_N
        lhs = T.alloc_shared((block_M, block_N), in_dtype)
        rhs = T.alloc_shared((block_M, block_N), in_dtype)
        total = T.alloc_fragment((block_M, block_N), out_dtype)
        result = T.alloc_shared((block_M, block_N), out_dtype)

        T.copy(A[top, left], lhs)
        T.copy(B[top, left], rhs)
        for r, c in T.Parallel(block_M, block_N):
            total[r, c] = lhs[r, c] + rhs[r, c]
        T.copy(total, result)
        T.copy(result, C[top, left])

    return C
