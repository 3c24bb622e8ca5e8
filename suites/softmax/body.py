"""Row softmax bodies for suites/softmax/test_softmax.py: ``Y = softmax(X, dim=1)``, fp16 in and out,
fp32 arithmetic.

Our own code; ``softmax_cuda`` takes the algorithm of tilelang's examples/online_softmax/online_softmax.py
and nothing else:
- ``softmax_cuda``: blocks of ``BLOCK_M`` rows; a
  first pipelined pass over ``BLOCK_N`` columns keeps a running log-sum-exp, a second writes
  ``exp2(x * log2(e) - lse)``, with M and N as ``T.const`` sizes (the example read them from
  module globals), ``num_stages`` on both column loops (the example left tilelang's default)
  and each column tile staged through a shared buffer of its loop (copied straight into
  registers, as in the example, there is nothing for the pipeline to version: num_stages
  1..3 lowered to byte-identical CUDA);
- ``softmax_ascend``: the same two passes for Ascend's vector cores, written here (tilelang
  has no Ascend softmax example): a fixed grid of cores, a pipelined loop over each core's
  rows, each row copied to UB by DMA in fp16 (a DMA copy cannot cast) and reduced, scaled and
  cast back inside one ``T.SimtVF`` block (every ``T.Parallel`` must be in one).
Plain tilelang: nothing here knows tlbench.
"""

import tilelang
import tilelang.ascend.language as TA
import tilelang.language as T

LOG2E = 1.44269504


@tilelang.jit
def softmax_cuda(X, BLOCK_M=1, BLOCK_N=8192, num_stages=2, threads=128, dtype="float16"):
    M, N = T.const("M, N")
    X: T.Tensor([M, N], dtype)
    Y = T.empty([M, N], dtype)
    accum_dtype = T.float32
    scale = LOG2E

    with T.Kernel(T.ceildiv(M, BLOCK_M), threads=threads) as (i_m):
        x_shared = T.alloc_shared([BLOCK_M, BLOCK_N], dtype)  # staged through shared: what the pipeline versions
        x2_shared = T.alloc_shared([BLOCK_M, BLOCK_N], dtype)  # the second pass's tile (each loop its own)
        x = T.alloc_fragment([BLOCK_M, BLOCK_N], dtype)
        y = T.alloc_fragment([BLOCK_M, BLOCK_N], dtype)
        lse = T.alloc_fragment([BLOCK_M], accum_dtype)
        max_x = T.alloc_fragment([BLOCK_M], dtype)
        exp_x = T.alloc_fragment([BLOCK_M, BLOCK_N], accum_dtype)
        sum_exp_x = T.alloc_fragment([BLOCK_M], accum_dtype)
        T.fill(lse, -T.infinity(accum_dtype))

        for i_n in T.Pipelined(T.ceildiv(N, BLOCK_N), num_stages=num_stages):
            T.copy(X[i_m * BLOCK_M, i_n * BLOCK_N], x_shared)
            T.copy(x_shared, x)
            T.reduce_max(x, max_x, dim=1, clear=True)
            for i, j in T.Parallel(BLOCK_M, BLOCK_N):
                exp_x[i, j] = T.exp2(x[i, j] * scale - max_x[i] * scale)
            T.reduce_sum(exp_x, sum_exp_x, dim=1, clear=True)
            for i in T.Parallel(BLOCK_M):
                lse[i] = max_x[i] * scale + T.log2(T.exp2(lse[i] - max_x[i] * scale) + sum_exp_x[i])

        for i_n in T.Pipelined(T.ceildiv(N, BLOCK_N), num_stages=num_stages):
            T.copy(X[i_m * BLOCK_M, i_n * BLOCK_N], x2_shared)
            T.copy(x2_shared, x)
            for i, j in T.Parallel(BLOCK_M, BLOCK_N):
                y[i, j] = T.exp2(x[i, j] * scale - lse[i])
            T.copy(y, Y[i_m * BLOCK_M, i_n * BLOCK_N])

    return Y


def softmax_ascend(M, N, BLOCK_M=1, BLOCK_N=8192, num_stages=2, threads=256, cores=64, dtype="float16"):
    """Whole rows (``BLOCK_N`` is the CUDA body's column tile: here N fits UB, it is unused)."""
    if M % (cores * BLOCK_M):
        raise ValueError(f"M={M} must be a multiple of cores*BLOCK_M={cores * BLOCK_M}")
    steps = M // (cores * BLOCK_M)
    accum = "float32"

    @TA.prim_func
    def main(X: TA.Tensor((M, N), dtype), Y: TA.Tensor((M, N), dtype)):
        with TA.Kernel(cores) as core:
            x_ub = TA.alloc_shared((BLOCK_M, N), dtype)
            y_ub = TA.alloc_shared((BLOCK_M, N), dtype)
            for t in TA.Pipelined(steps, num_stages=num_stages):
                row = (t * cores + core) * BLOCK_M
                TA.copy(X[row : row + BLOCK_M, :], x_ub)
                with TA.SimtVF(threads=threads):
                    for r in TA.serial(BLOCK_M):
                        row_max = TA.alloc_reducer((1,), accum, op="max", replication="all")
                        TA.fill(row_max, -TA.infinity(accum))
                        for i in TA.Parallel(N):
                            row_max[0] = TA.max(row_max[0], x_ub[r, i].astype(accum))
                        TA.finalize_reducer(row_max)
                        row_sum = TA.alloc_reducer((1,), accum, op="sum", replication="all")
                        TA.clear(row_sum)
                        for i in TA.Parallel(N):
                            row_sum[0] += TA.exp2((x_ub[r, i].astype(accum) - row_max[0]) * LOG2E)
                        TA.finalize_reducer(row_sum)
                        for i in TA.Parallel(N):
                            y_ub[r, i] = (TA.exp2((x_ub[r, i].astype(accum) - row_max[0]) * LOG2E) / row_sum[0]).astype(dtype)
                TA.copy(y_ub, Y[row : row + BLOCK_M, :])

    return main


def inputs(device, M, N, dtype):
    import torch

    return [torch.randn(M, N, dtype=getattr(torch, dtype), device=device)]


def reference(X):
    return X.float().softmax(dim=1)


def torch_softmax(X):
    return X.softmax(dim=1)
