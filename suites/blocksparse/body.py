"""A block-sparse GEMM with an fp8 output, for suites/blocksparse/test_blocksparse_fp8.py.

``C = A @ B`` over the tiles a boolean ``BlockMask`` keeps (laid out by the tile, so the inputs
take the tile), fp16 operands, fp32 accumulation, C as ``out_dtype`` (fp8 e4m3).  CUDA only.
"""

import tilelang.language as T


def blocksparse_gemm(M, N, K, block_M, block_N, block_K, num_stages, threads=128, dtype="float16",
                     accum_dtype="float32", out_dtype="float8_e4m3"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             BlockMask: T.Tensor((M // block_M, N // block_N, K // block_K), "bool"),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if BlockMask[by, bx, k]:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def inputs(device, M, N, K, block_M, block_N, block_K, density):
    """A and B (fp16, scaled so C stays inside e4m3's range), and the tile mask (about
    ``density`` of the tiles kept, every block row keeping at least one)."""
    import torch

    a = (torch.randn(M, K, device=device) * 0.5).half()
    b = (torch.randn(K, N, device=device) * 0.5).half()
    mask = torch.rand(M // block_M, N // block_N, K // block_K, device=device) < density
    mask[:, :, 0] = True
    return [a, b, mask]


def reference(a, b, mask, block_M, block_N, block_K):
    """The masked product in fp32, one K tile at a time (the steps rule rounds it to C's dtype)."""
    import torch

    out = torch.zeros(a.shape[0], b.shape[1], dtype=torch.float32, device=a.device)
    for k in range(mask.shape[2]):
        keep = mask[:, :, k].repeat_interleave(block_M, 0).repeat_interleave(block_N, 1)
        part = a[:, k * block_K:(k + 1) * block_K].float() @ b[k * block_K:(k + 1) * block_K, :].float()
        out += part * keep
    return out


def dense_cublas(a, b, mask):
    """The dense fp16 GEMM (cuBLAS on a GPU): a speed reference, not the same product."""
    return a @ b


def flops(M, N, K, density):
    return int(2 * M * N * K * density)
