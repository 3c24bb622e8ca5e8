"""Block-sparse fp16 GEMM, a K loop that skips the tiles its mask turns off: after tilelang examples/blocksparse_gemm/example_blocksparse_gemm.py.

Our own code with that file's public functions (``blocksparse_matmul`` under
``@tilelang.autotune``, ``get_configs``, ``ref_program``).  ``BlockMask[i, j, k]`` says whether
output tile (i, j) takes the product of A's tile (i, k) and B's tile (k, j); a block walks K
in a pipelined loop, copying and multiplying only the live tiles into an fp32 accumulator,
and writes the tile through shared memory (blocks rasterized in panels of 10 when
``enable_rasteration``).
"""

import itertools

import tilelang
import tilelang.language as T
import torch


def get_configs():
    """The autotuner's space: tile, stages, threads, rasterization."""
    names = ("block_M", "block_N", "block_K", "num_stages", "thread_num", "enable_rasteration")
    space = itertools.product((64, 128, 256), (64, 128, 256), (32, 64), (1, 2, 3), (128, 256), (True, False))
    return [dict(zip(names, values)) for values in space]


def ref_program(A, B, BlockMask, block_M, block_N, block_K):
    """The masked product in fp32, one K tile at a time (fp16 out)."""
    rows, depth = A.shape
    cols = B.shape[1]
    total = torch.zeros(rows, cols, dtype=torch.float32, device=A.device)
    for k in range(depth // block_K):
        span = slice(k * block_K, (k + 1) * block_K)
        live = BlockMask[:, :, k].to(torch.float32).repeat_interleave(block_M, 0).repeat_interleave(block_N, 1)
        total += (A[:, span].float() @ B[span, :].float()) * live
    return total.to(torch.float16)


@tilelang.autotune(configs=get_configs())
@tilelang.jit
def blocksparse_matmul(A, B, BlockMask, block_M, block_N, block_K, num_stages, thread_num, enable_rasteration,
                       dtype=T.float16, accum_dtype=T.float32):
    """C (M x N) = the sum over live K tiles of A (M x K) @ B (K x N)."""
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    BlockMask: T.Tensor((M // block_M, N // block_N, K // block_K), "bool")
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (tile_n, tile_m):
        a_tile = T.alloc_shared((block_M, block_K), dtype)
        b_tile = T.alloc_shared((block_K, block_N), dtype)
        acc = T.alloc_fragment((block_M, block_N), accum_dtype)
        c_tile = T.alloc_shared((block_M, block_N), dtype)

        T.use_swizzle(panel_size=10, enable=enable_rasteration)
        T.clear(acc)
        for kt in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            if BlockMask[tile_m, tile_n, kt]:
                T.copy(A[tile_m * block_M, kt * block_K], a_tile)
                T.copy(B[kt * block_K, tile_n * block_N], b_tile)
                T.gemm(a_tile, b_tile, acc)
        T.copy(acc, c_tile)
        T.copy(c_tile, C[tile_m * block_M, tile_n * block_N])

    return C
