"""GEMM on int4 operands declared ``T.int4`` (given packed two a byte), int32 out, C = A @ B^T: after tilelang examples/gemm_int4/example_tilelang_gemm_int4.py.

Our own code with that file's public functions (``matmul_nt_int4`` returning a PrimFunc,
``pack_int4``).  A block owns a block_M x block_N tile of C; a three-stage pipelined K loop
copies int4 tiles of A and B (N x K) into shared memory and lets ``T.gemm`` multiply them
into an int32 fragment.
"""

import tilelang.language as T
import torch


def matmul_nt_int4(M, N, K, block_M, block_N, block_K, threads=128):
    """The PrimFunc C (M x N int32) = A (M x K int4) @ B (N x K int4)^T."""

    @T.prim_func
    def main(A: T.Tensor((M, K), T.int4), B: T.Tensor((N, K), T.int4), C: T.Tensor((M, N), T.int32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (col_tile, row_tile):
            a_tile = T.alloc_shared((block_M, block_K), T.int4)
            b_tile = T.alloc_shared((block_N, block_K), T.int4)
            acc = T.alloc_fragment((block_M, block_N), T.int32)
            T.clear(acc)
            for kt in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[row_tile * block_M, kt * block_K], a_tile)
                T.copy(B[col_tile * block_N, kt * block_K], b_tile)
                T.gemm(a_tile, b_tile, acc, transpose_B=True)
            T.copy(acc, C[row_tile * block_M, col_tile * block_N])

    return main


def pack_int4(tensor: torch.Tensor) -> torch.Tensor:
    """An int8 tensor of values in [-8, 8) packed two a byte along the last dimension (the even
    column in the low nibble): what a ``T.int4`` parameter reads."""
    if tensor.dtype != torch.int8:
        raise TypeError(f"pack_int4 takes the int4 values as an int8 tensor, not {tensor.dtype}")
    if tensor.ndim == 0 or tensor.shape[-1] % 2:
        raise ValueError(f"pack_int4 needs an even last dimension, not shape {tuple(tensor.shape)}")
    wide = tensor.to(torch.int16)
    low, high = wide[..., 0::2] & 0xF, wide[..., 1::2] & 0xF
    return (low | (high << 4)).to(torch.int8).contiguous()
