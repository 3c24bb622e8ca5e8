"""Implicit-GEMM 2-D convolution, NHWC data and (KH, KW, C, F) filters, im2col into shared memory: after tilelang examples/convolution/example_convolution.py.

Our own code with that file's public functions (``convolution``, ``ref_program``).  The
output (N * OH * OW rows by F filters) is a GEMM whose K dimension runs over KH * KW * C: a
block owns block_M output pixels by block_N filters; each step of the pipelined K loop
gathers a block_M x block_K patch of the input with ``T.im2col`` (stride S, dilation D,
padding P) and the matching block_K x block_N slice of the filters, accumulating in fp32.
"""

import tilelang
import tilelang.language as T
import torch


def ref_program(stride, padding, dilation):
    """A function (data NHWC, filters KH x KW x C x F) -> NHWC output, by torch.conv2d."""

    def conv(A, B):
        out = torch.conv2d(A.permute(0, 3, 1, 2), B.permute(3, 2, 0, 1), stride=stride, padding=padding, dilation=dilation)
        return out.permute(0, 2, 3, 1)

    return conv


def _out_size(size, K, S, D, P):
    return (size + 2 * P - D * (K - 1) - 1) // S + 1


@tilelang.jit
def convolution(data, kernel, S, D, P, block_M, block_N, block_K, num_stages, threads, dtype=T.float16,
                accum_dtype=T.float32):
    """out (N x OH x OW x F, fp16) = conv2d(data, kernel), fp32 accumulation."""
    N, C, H, W, F, K = T.const("N, C, H, W, F, K")
    dtype, accum_dtype = T.float16, T.float32  # fp16 in and out, as the example fixes them
    OH, OW = _out_size(H, K, S, D, P), _out_size(W, K, S, D, P)
    data: T.Tensor((N, H, W, C), dtype)
    kernel: T.Tensor((K, K, C, F), dtype)
    out = T.empty((N, OH, OW, F), dtype)

    with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M), threads=threads) as (f_block, pixel_block):
        patch = T.alloc_shared((block_M, block_K), dtype)
        weights = T.alloc_shared((block_K, block_N), dtype)
        acc = T.alloc_fragment((block_M, block_N), accum_dtype)
        result = T.alloc_shared((block_M, block_N), dtype)
        filters = T.Tensor((K * K * C, F), dtype, kernel.data)  # the filters as a (KH * KW * C) x F matrix
        pixels = T.Tensor((N * OH * OW, F), dtype, out.data)  # the output as one row per pixel

        T.clear(acc)
        for kt in T.Pipelined(T.ceildiv(K * K * C, block_K), num_stages=num_stages):
            T.im2col(data, patch, pixel_block, kt, K, S, D, P)
            T.copy(filters[kt * block_K, f_block * block_N], weights)
            T.gemm(patch, weights, acc)
        T.copy(acc, result)
        T.copy(result, pixels[pixel_block * block_M, f_block * block_N])

    return out
