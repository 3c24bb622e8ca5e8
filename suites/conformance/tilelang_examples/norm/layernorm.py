"""LayerNorm forward with the row mean and reciprocal standard deviation as outputs: after tilelang examples/norm/layernorm.py.

Our own code with that file's forward kernel (``_layernorm_fwd``, a ``@tilelang.jit`` with
``out_idx=[-3, -2, -1]``) and ``ref_program``.  A block takes ``blk_m`` whole rows of length D
into shared memory with gamma and beta, sums each row and its squares in fp32 registers,
writes mean and rstd = 1 / sqrt(E[x^2] - mean^2 + eps), and the normalized, scaled and
shifted row back through the same shared buffer.
"""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-3, -2, -1])
def _layernorm_fwd(N, D, eps=1e-5, blk_m=1, threads=256, in_dtype="bfloat16", out_dtype="bfloat16"):
    """The PrimFunc (X [N, D], gamma [D], beta [D]) -> (Y [N, D], Mean [N], Rstd [N] in fp32)."""
    acc = "float"

    @T.prim_func
    def main(X: T.Tensor((N, D), in_dtype), gamma: T.Tensor((D,), in_dtype), beta: T.Tensor((D,), in_dtype),
             Y: T.Tensor((N, D), out_dtype), Mean: T.Tensor((N,), acc), Rstd: T.Tensor((N,), acc)):
        with T.Kernel(T.ceildiv(N, blk_m), threads=threads) as block:
            first = block * blk_m
            rows = T.alloc_shared((blk_m, D), in_dtype)
            g_sh = T.alloc_shared((D,), in_dtype)
            b_sh = T.alloc_shared((D,), in_dtype)
            x = T.alloc_fragment((blk_m, D), acc)
            x_sq = T.alloc_fragment((blk_m, D), acc)
            total = T.alloc_fragment((blk_m,), acc)
            total_sq = T.alloc_fragment((blk_m,), acc)
            mean = T.alloc_fragment((blk_m,), acc)
            rstd = T.alloc_fragment((blk_m,), acc)

            T.copy(X[first, 0], rows)
            T.copy(gamma, g_sh)
            T.copy(beta, b_sh)
            for r, c in T.Parallel(blk_m, D):
                x[r, c] = T.Cast(acc, rows[r, c])
            for r, c in T.Parallel(blk_m, D):
                x_sq[r, c] = x[r, c] * x[r, c]
            T.reduce_sum(x, total, dim=1)
            T.reduce_sum(x_sq, total_sq, dim=1)

            per_value = T.float32(1.0) / T.Cast(acc, D)
            for r in T.Parallel(blk_m):
                mean[r] = total[r] * per_value
                rstd[r] = T.rsqrt(total_sq[r] * per_value - mean[r] * mean[r] + T.Cast(acc, eps))
                Mean[first + r] = mean[r]
                Rstd[first + r] = rstd[r]
            for r, c in T.Parallel(blk_m, D):
                rows[r, c] = T.Cast(out_dtype, (x[r, c] - mean[r]) * rstd[r] * T.Cast(acc, g_sh[c]) + T.Cast(acc, b_sh[c]))
            T.copy(rows, Y[first, 0])

    return main


def ref_program(x, gamma, beta, eps):
    """torch's layer_norm over the last dimension."""
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps=eps)
