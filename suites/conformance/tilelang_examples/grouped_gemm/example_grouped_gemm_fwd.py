"""Grouped GEMM (MoE experts): each group's rows of A times its own B, one launch for all groups: after tilelang examples/grouped_gemm/example_grouped_gemm_fwd.py.

Our own code with that file's public functions (``grouped_gemm``, ``construct_inputs``,
``torch_gmm``).  The kernel is built for the group sizes (``batch_sizes_list``): each group's
rows are padded to a multiple of block_M, and one block row of the grid per padded block_M
rows finds its group from the padded offsets, runs the pipelined K loop over that group's B,
and writes only the rows that belong to the group.
"""

import math

import tilelang
import tilelang.language as T
import torch


def torch_gmm(a, b, batch_sizes, batch_offsets_tensor, trans_b=False):
    """One torch.mm per group: rows [offset, offset + size) of ``a`` times ``b[g]`` (transposed
    when ``trans_b``)."""
    sizes = [int(s) for s in batch_sizes]
    if a.shape[0] != sum(sizes) or b.shape[0] != len(sizes):
        raise ValueError(f"a has {a.shape[0]} rows and b {b.shape[0]} groups for group sizes {sizes}")
    out = torch.empty((sum(sizes), b.shape[1] if trans_b else b.shape[2]), device=a.device, dtype=a.dtype)
    start = 0
    for g, size in enumerate(sizes):
        out[start : start + size] = torch.mm(a[start : start + size], b[g].T if trans_b else b[g])
        start += size
    return out


def construct_inputs(batch_sizes_list, K, M, trans_b, padding_M, device, dtype):
    """(A, B, batch_sizes, batch_offsets, batch_padded_offsets): random A (sum of sizes x K) and B
    (groups x K x M, or x M x K when ``trans_b``), the sizes and each group's first row, plain and
    with every earlier group padded to a multiple of ``padding_M`` (int32)."""
    offsets, padded = [0], [0]
    for size in batch_sizes_list[:-1]:
        offsets.append(offsets[-1] + size)
        padded.append(padded[-1] + math.ceil(size / padding_M) * padding_M)
    groups = len(batch_sizes_list)
    A = torch.randn(sum(batch_sizes_list), K, device=device, dtype=dtype)
    B = torch.randn(groups, *((M, K) if trans_b else (K, M)), device=device, dtype=dtype)

    def as_int32(values):
        return torch.tensor(values, device=device, dtype=torch.int32)

    return A, B, as_int32(list(batch_sizes_list)), as_int32(offsets), as_int32(padded)


@tilelang.jit
def grouped_gemm(A, B, batch_sizes, batch_offsets, batch_padded_offsets, batch_sizes_list, block_M, block_N, block_K,
                 trans_b=False, num_stages=2, threads=128, dtype=T.float16):
    """C (sum of sizes x N) = per group, its rows of A (x K) @ its B (K x N, or N x K when ``trans_b``)."""
    K, N = T.const("K, N")
    groups = len(batch_sizes_list)
    row_blocks = sum(-(-size // block_M) for size in batch_sizes_list)
    A: T.Tensor([sum(batch_sizes_list), K], dtype)
    B: T.Tensor([groups, N, K] if trans_b else [groups, K, N], dtype)
    C = T.empty([sum(batch_sizes_list), N], dtype)
    batch_sizes: T.Tensor([groups], T.int32)
    batch_offsets: T.Tensor([groups], T.int32)
    batch_padded_offsets: T.Tensor([groups], T.int32)

    with T.Kernel(row_blocks, T.ceildiv(N, block_N), threads=threads) as (row_block, col_tile):
        a_tile = T.alloc_shared([block_M, block_K], dtype)
        b_tile = T.alloc_shared([block_N, block_K] if trans_b else [block_K, block_N], dtype)
        acc = T.alloc_fragment([block_M, block_N], T.float32)
        group = T.alloc_var(dtype=T.int32)
        size = T.alloc_var(dtype=T.int32)

        padded_row = row_block * block_M
        group = 0
        for g in range(groups):  # the last group whose padded start is at or before this block's rows
            group = T.if_then_else(padded_row >= batch_padded_offsets[g], g, group)
        size = batch_sizes[group]
        first_row = padded_row - batch_padded_offsets[group] + batch_offsets[group]
        rows_here = T.max(0, T.min(block_M, size + batch_padded_offsets[group] - padded_row))
        left = col_tile * block_N

        T.clear(acc)
        for kt in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            T.copy(A[first_row : first_row + block_M, kt * block_K : (kt + 1) * block_K], a_tile)
            if trans_b:
                T.copy(B[group, left : left + block_N, kt * block_K : (kt + 1) * block_K], b_tile)
            else:
                T.copy(B[group, kt * block_K : (kt + 1) * block_K, left : left + block_N], b_tile)
            T.gemm(a_tile, b_tile, acc, transpose_B=trans_b)

        for r, c in T.Parallel(block_M, block_N):
            if r < rows_here:
                C[first_row + r, left + c] = acc[r, c]

    return C
