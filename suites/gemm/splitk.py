"""Split-K and stream-K GEMM bodies for suites/gemm/test_gemm_splitk.py and test_gemm_streamk.py:
``C = A @ B^T`` (A: M x K, B: N x K, fp16 in, fp32 accumulate and out), tilelang examples'
algorithms: ``gemm_splitk_cuda`` (blocks add a K share into C with ``T.atomic_add``),
``gemm_splitk_ascend`` (32 cube cores in ``32 / split_k`` groups, split 0 stores, the others add
through the FixPipe atomic after a barrier), ``gemm_streamk_cuda`` (one block per SM walks an even
share of K steps).  The CUDA bodies accumulate into C, so a first ``T.Kernel`` of the same
PrimFunc zeroes it: every timed call pays the clearing, as cuBLAS's split-K pays its reduction.
"""

import math

import tilelang
import tilelang.ascend.language as TA
import tilelang.language as T

ASCEND_CUBE_CORES = 32
H200_SMS = 132


@T.macro
def _zero(C, block_M, block_N, threads):
    M, N = C.shape
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
        for i, j in T.Parallel(block_M, block_N):
            C[by * block_M + i, bx * block_N + j] = 0


@tilelang.jit
def gemm_splitk_cuda(A, B, C, block_M, block_N, block_K, split_k, num_stages=2, threads=128,
                     dtype="float16", accum_dtype="float32"):
    M, N, K = T.const("M, N, K")
    splitK = K // split_k

    A: T.Tensor((M, K), dtype)
    B: T.Tensor((N, K), dtype)
    C: T.Tensor((M, N), accum_dtype)

    _zero(C, block_M, block_N, threads)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=threads) as (bx, by, bz):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_N, block_K), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(splitK, block_K), num_stages=num_stages):
            T.copy(A[by * block_M, bz * splitK + ko * block_K], A_shared)
            T.copy(B[bx * block_N, bz * splitK + ko * block_K], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_B=True)

        T.atomic_add(C[by * block_M, bx * block_N], C_local)


def gemm_splitk_ascend(M, N, K, block_M, block_N, block_K, split_k, num_stages=2, dtype="float16",
                       accum_dtype="float32"):
    cores = ASCEND_CUBE_CORES
    m_tiles, n_tiles, k_tiles = M // block_M, N // block_N, K // block_K
    groups = cores // split_k
    tiles_per_group = m_tiles * n_tiles // groups
    k_per_split = k_tiles // split_k

    @TA.prim_func
    def main(A: TA.Tensor((M, K), dtype), B: TA.Tensor((N, K), dtype), C: TA.Tensor((M, N), accum_dtype)):
        with TA.Kernel(cores) as bx:
            split_id = bx % split_k
            group_id = bx // split_k
            a_l1 = TA.alloc_l1((block_M, block_K), dtype)
            b_l1 = TA.alloc_l1((block_N, block_K), dtype)
            acc = TA.alloc_l0c((block_M, block_N), accum_dtype)
            if split_id != 0:
                TA.set_atomic("add", accum_dtype)
            for out_tile in TA.Serial(tiles_per_group):
                tile = out_tile * groups + group_id
                m, n = tile // n_tiles, tile % n_tiles
                for local_kt in TA.Pipelined(k_per_split, num_stages=num_stages):
                    kt = split_id * k_per_split + local_kt
                    TA.copy(A[m * block_M : (m + 1) * block_M, kt * block_K : (kt + 1) * block_K], a_l1)
                    TA.copy(B[n * block_N : (n + 1) * block_N, kt * block_K : (kt + 1) * block_K], b_l1)
                    TA.gemm(a_l1, b_l1, acc, transpose_B=True, clear_accum=(local_kt == 0))
                with TA.PerCoreTask():
                    if split_id == 0:  # split 0 initializes C; the barrier orders the atomic adds after it
                        TA.copy(acc, C[m * block_M, n * block_N])
                    TA.ascend_sync_inter_arrive("PIPE_FIX", 0)
                    TA.ascend_sync_inter_wait("PIPE_FIX", 0)
                    if split_id != 0:
                        TA.copy(acc, C[m * block_M, n * block_N])
            if split_id != 0:
                TA.set_atomic_none()

    return main


def gemm_streamk_cuda(M, N, K, block_M, block_N, block_K, num_stages=2, threads=128, sms=H200_SMS,
                      dtype="float16", accum_dtype="float32"):
    steps = math.ceil(K / block_K)  # K steps of one output tile
    tiles_n = math.ceil(N / block_N)
    tiles = math.ceil(M / block_M) * tiles_n
    shared_tiles = tiles % sms + (sms if tiles - tiles % sms > sms else 0)  # split over every SM by K steps
    share, extra = divmod(shared_tiles * steps, sms)  # K steps per SM; the first `extra` SMs take one more
    spans = math.ceil((share + 1) / steps) + 1  # the most output tiles one SM's steps can touch
    rounds = math.ceil((tiles - shared_tiles) / sms)  # whole tiles left, dealt round-robin

    @T.macro
    def accumulate(A, B, acc, a_tile, b_tile, tile, k_from, k_to):
        row, col = tile // tiles_n * block_M, tile % tiles_n * block_N
        for k in T.Pipelined(k_to - k_from, num_stages=num_stages):
            T.copy(A[row, (k_from + k) * block_K], a_tile)
            T.copy(B[col, (k_from + k) * block_K], b_tile)
            T.gemm(a_tile, b_tile, acc, transpose_B=True)

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), accum_dtype)):
        _zero(C, block_M, block_N, threads)
        with T.Kernel(sms, threads=threads) as sm:
            a_tile = T.alloc_shared((block_M, block_K), dtype)
            b_tile = T.alloc_shared((block_N, block_K), dtype)
            acc = T.alloc_fragment((block_M, block_N), accum_dtype)
            first = sm * share + T.min(sm, extra)  # this SM's K steps: [first, after) of all tiles' steps
            after = first + share + T.if_then_else(sm < extra, 1, 0)
            for span in T.serial(spans):
                tile = first // steps + span
                lo = T.max(first, tile * steps) - tile * steps
                hi = T.min(after, tile * steps + steps) - tile * steps
                if lo < hi:
                    T.clear(acc)
                    accumulate(A, B, acc, a_tile, b_tile, tile, lo, hi)
                    if hi - lo < steps:  # a part of the tile: other SMs add theirs
                        for i, j in T.Parallel(block_M, block_N):
                            T.atomic_add(C[tile // tiles_n * block_M + i, tile % tiles_n * block_N + j], acc[i, j])
                    else:
                        T.copy(acc, C[tile // tiles_n * block_M, tile % tiles_n * block_N])
            for r in T.serial(rounds):
                if shared_tiles + r * sms + sm < tiles:
                    T.clear(acc)
                    accumulate(A, B, acc, a_tile, b_tile, shared_tiles + r * sms + sm, 0, steps)
                    T.copy(acc, C[(shared_tiles + r * sms + sm) // tiles_n * block_M,
                                  (shared_tiles + r * sms + sm) % tiles_n * block_N])

    return main


def splitk_refusal(M, N, K, block_M, block_N, block_K, split_k, dialect, **_):
    """Why a split-K config cannot build a problem (None: it can)."""
    if M % block_M or N % block_N or K % (split_k * block_K):
        return f"M, N must be multiples of block_M, block_N and K of split_k*block_K={split_k * block_K}"
    if dialect == "ascend":
        groups = ASCEND_CUBE_CORES // split_k
        if ASCEND_CUBE_CORES % split_k or (M // block_M) * (N // block_N) % groups:
            return f"split_k={split_k} must divide {ASCEND_CUBE_CORES} cores into groups that share the output tiles evenly"
    return None


def inputs(device, M, N, K, dtype):
    import torch

    dtype = getattr(torch, dtype)
    return [torch.randn(M, K, dtype=dtype, device=device), torch.randn(N, K, dtype=dtype, device=device)]


def reference(A, B):
    return A.float() @ B.float().T


def cublas(A, B):
    return A @ B.T


def splitk_footprint(dialect, block_M, block_N, block_K, num_stages, **_):
    """On-chip bytes the split-K bodies allocate: the A and B tiles per stage, the accumulator."""
    stage = (block_M + block_N) * block_K * 2
    if dialect == "cuda":
        return {"shared.dyn": stage * num_stages}
    if dialect == "ascend":
        return {"shared.l1": (stage * num_stages, stage), "shared.l0c": block_M * block_N * 4}
    return None
