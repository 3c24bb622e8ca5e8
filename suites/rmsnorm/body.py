"""RMSNorm bodies for suites/rmsnorm/test_rmsnorm.py: ``B = A * rsqrt(mean(A^2, -1) + 1e-12)``.

Our own code; what it takes from tilelang's examples is the algorithm: the CUDA body is the two-
pass RMSNorm of examples/norm/rms_norm.py (``rms_norm_splitk``; its two ``T.Serial`` column
loops become ``T.Pipelined(..., num_stages=num_stages)``, each loop with a shared tile of its
own - one tile versioned by both loops fails tilelang's layout check, "InputShape() = (2, 1,
1024) shape = (2, 2, 1, 1024)" - and the second pass scales into a fragment instead of the
shared tile it is loading); the Ascend body the algorithm of examples/ascend/example_rmsnorm.py
(a fixed grid of vector cores, a pipelined loop over their rows, the reduction and the scaling
in one ``T.SimtVF`` block), with the CUDA body's signature (no weight, no rstd output) so one
``inputs`` and one ``reference`` serve both. Both take ``blk_m`` (rows per step) and
``num_stages``. ``rms_norm_onepass_cuda`` (suites/rmsnorm/test_rmsnorm_onepass.py) is the algorithm of
the same file's one-pass ``rms_norm``: each block holds its ``blk_m`` whole rows on chip, so the
matrix is read once; ``threads`` is an axis (a 16384-wide fp32 row over 128 threads would need
256 registers a thread for its two fragments), and ``staged`` routes the load through shared
memory as the example does or (False) straight into registers. Plain tilelang: nothing here
knows tlbench.
"""

import tilelang
import tilelang.ascend.language as TA
import tilelang.language as T

EPS = 1e-12


@tilelang.jit(pass_configs={"tl.disable_tma_lower": True})
def rms_norm_cuda(A, blk_m, num_stages=2, blk_k=1024, threads=128, dtype="float32"):
    M, N = T.const("M, N")

    A: T.Tensor((M, N), dtype)
    B = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
        A_shared = T.alloc_shared((blk_m, blk_k), dtype)
        S_shared = T.alloc_shared((blk_m, blk_k), dtype)  # the second pass's tile: each loop its own versions
        A_local = T.alloc_fragment((blk_m, blk_k), dtype)
        B_local = T.alloc_fragment((blk_m, blk_k), dtype)
        A_powsum = T.alloc_fragment((blk_m,), dtype)

        num_k_step = T.ceildiv(N, blk_k)
        T.clear(A_local)
        for k in T.Pipelined(num_k_step, num_stages=num_stages):
            T.copy(A[bx * blk_m, k * blk_k], A_shared)
            for i, j in T.Parallel(blk_m, blk_k):
                A_local[i, j] += A_shared[i, j] * A_shared[i, j]
        T.reduce_sum(A_local, A_powsum, dim=1)
        for i in T.Parallel(blk_m):
            A_powsum[i] = T.rsqrt(A_powsum[i] / N + EPS)

        for k in T.Pipelined(num_k_step, num_stages=num_stages):
            # reverse, better cache hit rate
            T.copy(A[bx * blk_m, (num_k_step - 1 - k) * blk_k], S_shared)
            for i, j in T.Parallel(blk_m, blk_k):
                B_local[i, j] = S_shared[i, j] * A_powsum[i]
            T.copy(B_local, B[bx * blk_m, (num_k_step - 1 - k) * blk_k])

    return B


@tilelang.jit(pass_configs={"tl.disable_tma_lower": True})
def rms_norm_onepass_cuda(A, blk_m, threads=128, staged=True, dtype="float32"):
    M, N = T.const("M, N")

    A: T.Tensor((M, N), dtype)
    B = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
        A_local = T.alloc_fragment((blk_m, N), dtype)
        A_pow_local = T.alloc_fragment((blk_m, N), dtype)
        A_powsum = T.alloc_fragment((blk_m,), dtype)

        if staged:
            A_shared = T.alloc_shared((blk_m, N), dtype)
            T.copy(A[bx * blk_m, 0], A_shared)
            T.copy(A_shared, A_local)
        else:
            T.copy(A[bx * blk_m, 0], A_local)
        for i, j in T.Parallel(blk_m, N):
            A_pow_local[i, j] = A_local[i, j] * A_local[i, j]
        T.reduce_sum(A_pow_local, A_powsum, dim=1)
        for i in T.Parallel(blk_m):
            A_powsum[i] = T.rsqrt(A_powsum[i] / N + EPS)
        for i, j in T.Parallel(blk_m, N):
            A_local[i, j] *= A_powsum[i]
        T.copy(A_local, B[bx * blk_m, 0])

    return B


def onepass_footprint(dialect, N, blk_m, staged, dtype, **_):
    """Shared memory the staged one-pass body allocates: its blk_m whole rows."""
    return {"shared.dyn": blk_m * N * 4 if staged else 0} if dialect == "cuda" else None


def rms_norm_ascend(M, N, blk_m, num_stages=2, cores=64, threads=256, dtype="float32"):
    """Each of ``cores`` vector cores takes every ``cores``-th group of ``blk_m`` rows."""
    if M % (cores * blk_m):
        raise ValueError(f"M={M} must be a multiple of cores*blk_m={cores * blk_m}")
    steps = M // (cores * blk_m)

    @TA.prim_func
    def main(A: TA.Tensor((M, N), dtype), B: TA.Tensor((M, N), dtype)):
        with TA.Kernel(cores) as core:
            x_ub = TA.alloc_shared((blk_m, N), dtype)
            y_ub = TA.alloc_shared((blk_m, N), dtype)
            for t in TA.Pipelined(steps, num_stages=num_stages):
                row = (t * cores + core) * blk_m
                TA.copy(A[row : row + blk_m, :], x_ub)
                with TA.SimtVF(threads=threads):
                    for r in TA.serial(blk_m):
                        sum_sq = TA.alloc_reducer((1,), dtype, op="sum", replication="all")
                        TA.clear(sum_sq)
                        for i in TA.Parallel(N):
                            sum_sq[0] += x_ub[r, i] * x_ub[r, i]
                        TA.finalize_reducer(sum_sq)
                        rstd = TA.rsqrt(sum_sq[0] / N + EPS)
                        for i in TA.Parallel(N):
                            y_ub[r, i] = x_ub[r, i] * rstd
                TA.copy(y_ub, B[row : row + blk_m, :])

    return main


def inputs(device, M, N, dtype):
    import torch

    return [torch.randn(M, N, dtype=getattr(torch, dtype), device=device)]


def reference(A):
    import torch

    return A * torch.rsqrt(A.pow(2).mean(-1, keepdim=True) + EPS)


def torch_rms_norm(A):
    import torch

    return torch.nn.functional.rms_norm(A, (A.shape[-1],), eps=EPS)
