"""DeepSeek-style fp8 GEMM with fine-grained scales and a second fp32 accumulator: after tilelang examples/deepseek_deepgemm/example_deepgemm_fp8_2xAcc.py.

Our own code with that file's public functions (``tl_gemm``, ``per_token_cast_to_fp8``,
``per_block_cast_to_fp8``, ``calc_diff``, ``ceildiv``).  A is e4m3 with one scale per row and
128 columns, B (N x K) e4m3 with one scale per 128 x 128 block.  A block of 128 threads owns
a 64 x block_N tile of C; each 128-wide step of the four-stage pipelined K loop multiplies
the fp8 tiles into one fp32 fragment, then adds it, times A's row scales and B's block
scale, into a second fp32 fragment and clears the first ("2xAcc": the tensor cores' partial
sums are promoted every K tile).  C goes out through shared memory, blocks rasterized in
panels of 10.
"""

import tilelang
import tilelang.language as T
import torch

SCALE_GROUP = 128
E4M3_MAX = 448.0


def ceildiv(a, b):
    """``a / b`` rounded up."""
    return -(-a // b)


@tilelang.jit
def tl_gemm(A, B, scales_a, scales_b, block_N, in_dtype, out_dtype, accum_dtype):
    """C (M x N, ``out_dtype``) = (A * scales_a) @ (B * scales_b)^T."""
    if str(in_dtype) != "float8_e4m3fn":
        raise ValueError(f"tl_gemm takes float8_e4m3fn operands, not {in_dtype}")
    if str(out_dtype) not in ("bfloat16", "float32"):
        raise ValueError(f"tl_gemm writes bfloat16 or float32, not {out_dtype}")
    M, N, K = T.const("M, N, K")
    group, block_M, block_K = SCALE_GROUP, 64, 128
    A: T.Tensor((M, K), in_dtype)
    B: T.Tensor((N, K), in_dtype)
    scales_a: T.Tensor((M, T.ceildiv(K, group)), T.float32)
    scales_b: T.Tensor((T.ceildiv(N, group), T.ceildiv(K, group)), T.float32)
    C = T.empty((M, N), out_dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (col_tile, row_tile):
        a_tile = T.alloc_shared((block_M, block_K), in_dtype)
        b_tile = T.alloc_shared((block_N, block_K), in_dtype)
        c_tile = T.alloc_shared((block_M, block_N), out_dtype)
        partial = T.alloc_fragment((block_M, block_N), accum_dtype)
        total = T.alloc_fragment((block_M, block_N), accum_dtype)
        top, left = row_tile * block_M, col_tile * block_N

        T.use_swizzle(panel_size=10)
        T.clear(partial)
        T.clear(total)
        for kt in T.Pipelined(T.ceildiv(K, block_K), num_stages=4):
            T.copy(A[top, kt * block_K], a_tile)
            T.copy(B[left, kt * block_K], b_tile)
            b_scale = scales_b[left // group, kt]
            T.gemm(a_tile, b_tile, partial, transpose_B=True)
            for r, c in T.Parallel(block_M, block_N):
                total[r, c] += partial[r, c] * (scales_a[top + r, kt] * b_scale)
            T.clear(partial)
        T.copy(total, c_tile)
        T.copy(c_tile, C[top, left])

    return C


def per_token_cast_to_fp8(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(e4m3 values, M x K/128 fp32 scales): each row's groups of 128 scaled to e4m3's range."""
    rows, cols = x.shape
    if cols % SCALE_GROUP:
        raise ValueError(f"per_token_cast_to_fp8 needs a multiple of {SCALE_GROUP} columns, not {cols}")
    groups = x.view(rows, -1, SCALE_GROUP)
    peak = groups.abs().float().amax(dim=2).clamp(min=1e-4)
    values = (groups * (E4M3_MAX / peak.unsqueeze(2))).to(torch.float8_e4m3fn).view(rows, cols)
    return values, peak / E4M3_MAX


def per_block_cast_to_fp8(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(e4m3 values, fp32 scales of each 128 x 128 block), the tensor zero-padded to whole blocks."""
    rows, cols = x.shape
    padded = x.new_zeros(ceildiv(rows, SCALE_GROUP) * SCALE_GROUP, ceildiv(cols, SCALE_GROUP) * SCALE_GROUP)
    padded[:rows, :cols] = x
    blocks = padded.view(padded.shape[0] // SCALE_GROUP, SCALE_GROUP, padded.shape[1] // SCALE_GROUP, SCALE_GROUP)
    peak = blocks.abs().float().amax(dim=(1, 3), keepdim=True).clamp(min=1e-4)
    values = (blocks * (E4M3_MAX / peak)).to(torch.float8_e4m3fn).view_as(padded)[:rows, :cols].contiguous()
    return values, (peak / E4M3_MAX).view(blocks.shape[0], blocks.shape[2])


def calc_diff(x, y):
    """1 - 2xy / (x^2 + y^2) over the whole tensors, in double (0: identical)."""
    x, y = x.double(), y.double()
    return 1 - 2 * (x * y).sum() / (x * x + y * y).sum()
