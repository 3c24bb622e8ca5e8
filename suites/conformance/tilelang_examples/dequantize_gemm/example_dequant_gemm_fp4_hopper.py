"""GEMM of fp16 activations by fp4 (e2m1) weights packed two a byte, dequantized to fp16 in the K loop: after tilelang examples/dequantize_gemm/example_dequant_gemm_fp4_hopper.py.

Our own code with that file's public functions (``matmul`` under ``@tilelang.autotune`` with
``out_idx=[2]``, ``get_configs``, ``torch_convert``, ``ref_program``).  The kernel computes
Ct = B @ A^T (N x M): a block owns a block_N x block_M tile; each step of the pipelined K loop
copies A's tile and B's packed bytes into shared memory (B swizzled), expands every nibble to
fp16 in registers, and multiplies.  With ``split`` > 1 the K range is cut into that many
slices computed by separate blocks into a scratch buffer, and a second kernel adds them.

The fp4 -> fp16 conversion moves the bits (sign to bit 15, exponent + 14 to bits 10-14, the
mantissa bit to bit 9) and, like the example, does not special-case a zero exponent;
``torch_convert`` converts the same way, so the reference agrees with the kernel.
"""

import itertools

import tilelang
import tilelang.language as T
import torch
from tvm import tirx


def _fp4_as_f16(nbit, packed, position, dtype):
    """Nibble ``position`` (0: low) of the uint8 ``packed`` read as e2m1 and rebuilt as fp16 bits."""
    assert nbit == 4 and dtype == T.float16 and packed.dtype == T.uint8
    u16 = T.uint16

    def k(value):
        return tirx.const(value, u16)

    nibble = (packed >> (position.astype(u16) * k(nbit))) & k(15)
    sign, exponent, mantissa = nibble >> k(3), ((nibble & k(6)) >> k(1)) + k(14), nibble & k(1)
    bits = (((sign << k(5)) | exponent) << k(10)) | (mantissa << k(9))
    return tirx.reinterpret(T.float16, bits.astype(u16))


def torch_convert(tensor):
    """The packed (N x K/2 uint8) weights as fp16 (N x K), nibble by nibble, low first."""
    assert tensor.dim() == 2 and tensor.dtype == torch.uint8
    rows, half_cols = tensor.shape
    nibbles = torch.stack((tensor & 0x0F, tensor >> 4), dim=-1).reshape(rows, 2 * half_cols).to(torch.int16)
    sign = (nibbles >> 3) * -32768
    exponent = (((nibbles & 6) >> 1) + 14) << 10
    mantissa = (nibbles & 1) << 9
    return (sign + exponent + mantissa).view(torch.float16)


def ref_program(A, qB):
    """Ct (N x M, fp16) = (A @ dequantized(qB)^T)^T, in fp32."""
    return (A.float() @ torch_convert(qB).T.float()).to(torch.float16).transpose(0, 1)


def get_configs():
    """The autotuner's space: tile, stages, threads (split 1)."""
    names = ("block_M", "block_N", "block_K", "num_stages", "threads", "split")
    return [dict(zip(names, v)) for v in itertools.product((64, 128), (64, 128), (128, 256), (1, 2), (128, 256), (1,))]


@tilelang.autotune(configs=get_configs(), warmup=10, rep=10)
@tilelang.jit(out_idx=[2])
def matmul(M, N, K, in_dtype, out_dtype, accum_dtype, num_bits=4, block_M=128, block_N=128, block_K=128, num_stages=2,
           threads=256, split=1):
    """The PrimFunc (A: M x K ``in_dtype``, B: N x K/2 uint8 fp4 pairs) -> Ct: N x M ``out_dtype``."""
    per_byte = 8 // num_bits
    packed = T.uint8
    if K % (block_K * split):
        raise ValueError(f"K ({K}) must be a multiple of block_K * split ({block_K} * {split})")
    slice_k = K // split

    @T.macro
    def dequantize(b_bytes, b_f16):  # every nibble of the tile to fp16, in registers
        for n, c in T.Parallel(block_N, block_K):
            b_f16[n, c] = _fp4_as_f16(num_bits, b_bytes[n, c // per_byte], c % per_byte, dtype=in_dtype)

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype), B: T.Tensor((N, K // per_byte), packed), Ct: T.Tensor((N, M), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (n_tile, m_tile):
            a_tile = T.alloc_shared((block_M, block_K), in_dtype)
            b_packed = T.alloc_shared((block_N, block_K // per_byte), packed)
            b_bytes = T.alloc_fragment((block_N, block_K // per_byte), packed)
            b_f16 = T.alloc_fragment((block_N, block_K), in_dtype)
            b_ready = T.alloc_fragment((block_N, block_K), in_dtype)
            acc = T.alloc_fragment((block_N, block_M), accum_dtype)
            out_tile = T.alloc_shared((block_N, block_M), out_dtype)
            T.annotate_layout({b_packed: tilelang.layout.make_swizzled_layout(b_packed)})

            T.clear(acc)
            for kt in T.Pipelined(K // block_K, num_stages=num_stages):
                T.copy(A[m_tile * block_M, kt * block_K], a_tile)
                T.copy(B[n_tile * block_N, kt * block_K // per_byte], b_packed)
                T.copy(b_packed, b_bytes)
                dequantize(b_bytes, b_f16)
                T.copy(b_f16, b_ready)
                T.gemm(b_ready, a_tile, acc, transpose_B=True)
            T.copy(acc, out_tile)
            T.copy(out_tile, Ct[n_tile * block_N : (n_tile + 1) * block_N, m_tile * block_M : (m_tile + 1) * block_M])

    @T.prim_func
    def main_split(A: T.Tensor((M, K), in_dtype), B: T.Tensor((N, K // per_byte), packed), Ct: T.Tensor((N, M), out_dtype)):
        partials = T.alloc_buffer([split, T.ceildiv(N, block_N) * block_N, T.ceildiv(M, block_M) * block_M], out_dtype)
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split, threads=threads) as (n_tile, m_tile, part):
            a_tile = T.alloc_shared((block_M, block_K), in_dtype)
            b_packed = T.alloc_shared((block_N, block_K // per_byte), packed)
            b_bytes = T.alloc_fragment((block_N, block_K // per_byte), packed)
            b_f16 = T.alloc_fragment((block_N, block_K), in_dtype)
            b_ready = T.alloc_fragment((block_N, block_K), in_dtype)
            acc = T.alloc_fragment((block_N, block_M), accum_dtype)
            T.annotate_layout({b_packed: tilelang.layout.make_swizzled_layout(b_packed)})

            T.clear(acc)
            for kt in T.Pipelined(K // (block_K * split), num_stages=num_stages):
                depth = slice_k * part + kt * block_K
                T.copy(A[m_tile * block_M, depth], a_tile)
                T.copy(B[n_tile * block_N, depth // per_byte], b_packed)
                T.copy(b_packed, b_bytes)
                dequantize(b_bytes, b_f16)
                T.copy(b_f16, b_ready)
                T.gemm(b_ready, a_tile, acc, transpose_B=True)
            T.copy(acc, partials[part, n_tile * block_N : (n_tile + 1) * block_N, m_tile * block_M : (m_tile + 1) * block_M])
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M)) as (n_tile, m_tile):
            summed = T.alloc_fragment((block_N, block_M), out_dtype)
            T.clear(summed)
            for part in range(split):
                for n, m in T.Parallel(block_N, block_M):
                    summed[n, m] += partials[part, n_tile * block_N + n, m_tile * block_M + m]
            T.copy(summed, Ct[n_tile * block_N, m_tile * block_M])

    return main if split == 1 else main_split
