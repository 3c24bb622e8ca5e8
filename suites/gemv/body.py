"""GEMV bodies for suites/gemv/test_gemv.py (the README's "Benchmark your own kernel" example):
``y = A @ x``, A (M, N) and x (N,) in fp16, accumulated in fp32, y in fp16.

``gemv_cuda``: one block per ``block_M`` rows; its ``T.Pipelined`` loop walks N in
``block_N`` tiles (A's tile and x's tile through shared memory, ``num_stages`` deep), each
thread accumulating its products in registers, one row reduction at the end.
``gemv_ascend``: its Ascend 950 port, the same keyword arguments plus the vector cores:
each core takes every ``cores``-th group of ``block_M`` rows, its pipelined loop DMAs the
tiles into UB and accumulates each row's dot product in a ``T.SimtVF`` block (the porting
rules in the README: copies in the source dtype, the fp32 arithmetic inside the VF block,
a 1-D grid).  Plain tilelang: nothing here knows tlbench.
"""

import tilelang
import tilelang.ascend.language as TA
import tilelang.language as T


@tilelang.jit
def gemv_cuda(A, x, block_M, block_N, num_stages=2, threads=128, dtype="float16", accum_dtype="float32"):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), dtype)
    x: T.Tensor((N,), dtype)
    y = T.empty((M,), dtype)
    with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
        a_shared = T.alloc_shared((block_M, block_N), dtype)
        x_shared = T.alloc_shared((block_N,), dtype)
        partial = T.alloc_fragment((block_M, block_N), accum_dtype)
        row_sum = T.alloc_fragment((block_M,), accum_dtype)
        T.clear(partial)
        for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
            T.copy(A[bx * block_M, k * block_N], a_shared)
            T.copy(x[k * block_N], x_shared)
            for i, j in T.Parallel(block_M, block_N):
                partial[i, j] += T.cast(a_shared[i, j], accum_dtype) * T.cast(x_shared[j], accum_dtype)
        T.reduce_sum(partial, row_sum, dim=1)
        T.copy(row_sum, y[bx * block_M])
    return y


def gemv_ascend(M, N, block_M, block_N, num_stages=2, cores=64, threads=256, dtype="float16", accum_dtype="float32"):
    if M % (cores * block_M) or N % block_N:
        raise ValueError(f"M={M} must be a multiple of cores*block_M={cores * block_M}, N={N} of block_N={block_N}")
    groups, k_tiles = M // (cores * block_M), N // block_N

    @TA.prim_func
    def main(A: TA.Tensor((M, N), dtype), x: TA.Tensor((N,), dtype), y: TA.Tensor((M,), dtype)):
        with TA.Kernel(cores) as core:
            a_ub = TA.alloc_shared((block_M, block_N), dtype)
            x_ub = TA.alloc_shared((block_N,), dtype)
            acc_ub = TA.alloc_shared((block_M,), accum_dtype)
            y_ub = TA.alloc_shared((block_M,), dtype)
            for g in TA.serial(groups):
                row = (g * cores + core) * block_M
                with TA.SimtVF(threads=threads):
                    for i in TA.Parallel(block_M):
                        acc_ub[i] = 0
                for k in TA.Pipelined(k_tiles, num_stages=num_stages):
                    TA.copy(A[row : row + block_M, k * block_N : (k + 1) * block_N], a_ub)
                    TA.copy(x[k * block_N : (k + 1) * block_N], x_ub)
                    with TA.SimtVF(threads=threads):
                        for r in TA.serial(block_M):
                            dot = TA.alloc_reducer((1,), accum_dtype, op="sum", replication="all")
                            TA.clear(dot)
                            for j in TA.Parallel(block_N):
                                dot[0] += a_ub[r, j].astype(accum_dtype) * x_ub[j].astype(accum_dtype)
                            TA.finalize_reducer(dot)
                            acc_ub[r] += dot[0]
                with TA.SimtVF(threads=threads):
                    for i in TA.Parallel(block_M):
                        y_ub[i] = acc_ub[i].astype(dtype)
                TA.copy(y_ub, y[row : row + block_M])

    return main
