"""Chunk-local cumulative sum along the sequence of gated linear attention (every chunk of each head summed on its own): after tilelang examples/gdn/example_cumsum.py.

Our own code with that file's public function (``tilelang_chunk_local_cumsum_scalar``, a
``@tilelang.jit`` with ``out_idx=[-1]`` and warp specialization off, as upstream).  One block
per (chunk, batch x head): the chunk's values are copied into a 1 x block_S shared row in the
output dtype, summed along it by ``T.cumsum`` (from the end when ``reverse``) - in shared
memory, or in a register fragment when ``use_fragment`` - and copied out.  G is (B, S, H), or
(B, H, S) when ``head_first``.
"""

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True})
def tilelang_chunk_local_cumsum_scalar(
    B,
    S,
    H,
    chunk_size=64,
    is_varlen=False,
    head_first=False,
    reverse=False,
    input_dtype=T.float16,
    output_dtype=T.float32,
    block_S=64,
    threads=256,
    use_fragment=False,
):
    if chunk_size & (chunk_size - 1) or chunk_size <= 0:
        raise ValueError(f"chunk_size must be a power of 2, not {chunk_size}")
    if block_S != chunk_size:
        raise ValueError(f"block_S ({block_S}) must equal chunk_size ({chunk_size}): a block sums one chunk")
    shape = (B, H, S) if head_first else (B, S, H)

    @T.prim_func
    def kernel(G: T.Tensor(shape, dtype=input_dtype), G_new: T.Tensor(shape, dtype=output_dtype)):
        with T.Kernel(T.ceildiv(S, block_S), B * H, threads=threads) as (chunk, batch_head):
            b, h = batch_head // H, batch_head % H
            lo, hi = chunk * block_S, (chunk + 1) * block_S
            row = T.alloc_shared((1, block_S), dtype=output_dtype, scope="shared")
            if head_first:
                T.copy(G[b, h, lo:hi], row)
            else:
                T.copy(G[b, lo:hi, h], row)
            if use_fragment:
                held = T.alloc_fragment((1, block_S), dtype=output_dtype, scope="shared")
                T.copy(row, held)
                T.cumsum(held, dim=1, reverse=reverse)
                if head_first:
                    T.copy(held, G_new[b, h, lo:hi])
                else:
                    T.copy(held, G_new[b, lo:hi, h])
            else:
                T.cumsum(row, dim=1, reverse=reverse)
                if head_first:
                    T.copy(row, G_new[b, h, lo:hi])
                else:
                    T.copy(row, G_new[b, lo:hi, h])

    return kernel
