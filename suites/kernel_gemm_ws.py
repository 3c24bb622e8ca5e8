"""A hand warp-specialized Hopper GEMM whose consumers keep one WGMMA in flight, for
suites/test_gemm_ws.py: ``C = A @ B^T`` (A: M x K, B: N x K, fp16 in, fp32 accumulate, fp16
out, as the tile sweep's problems and cuBLAS's ``A @ B.T``).

Ported from tilelang's examples/warp_specialize/example_warp_specialize_gemm_barrierpipe_stage2.py
(a TMA producer warp group and a consumer warp group that hand shared-memory stages to each
other through a full and an empty mbarrier per stage), with:
- B stored N x K (``transpose_B=True``) and ``num_stages`` a parameter (the example fixed 2; its
  parity ``(ko // num_stages) % num_stages`` is the phase bit only for 2 stages, here ``& 1``);
- ``consumers`` consumer warp groups (1 or 2) over one ``block_M x block_N`` accumulator
  (``GemmWarpPolicy.FullRow``: each takes ``block_M / consumers`` rows) and the producer last,
  with ``setmaxnreg`` moving registers to the consumers;
- ``deferred``: each k step issues its WGMMAs with ``T.wgmma_gemm`` (no implicit wait) and waits
  with ``wgmma.wait_group 1``, so the previous step's WGMMAs are done and only their stage is
  handed back, while this step's run (the CUTLASS mainloop's structure; our code).  Without it
  the step waits for its own WGMMAs (``wait_group 0``) before handing its stage back, which is
  what tilelang 0.1.15's automatic warp specialization emits for ``T.Pipelined``
  (results/h200-parity/wgmma_wait.py prints that loop);
- ``group_m``: the 1-D grid walks output tiles in panels of that many tile rows (L2 reuse);
- ``staged``: the accumulator leaves through a shared-memory tile (coalesced stores), else
  straight from registers.
Plain tilelang: nothing here knows tlbench.
"""

import tilelang.language as T

PRODUCER_THREADS = 128
WARP_GROUP = 128
# setmaxnreg (producer, consumer) per consumer count: the SM's 64K registers over the block
NREG = {1: (40, 232), 2: (24, 240)}
SHARED_BYTES = 232448  # sm_90's opt-in shared memory per block


def gemm_ws_cuda(M, N, K, block_M, block_N, block_K, num_stages=4, consumers=2, deferred=True, group_m=8,
                 staged=True, dtype="float16", accum_dtype="float32"):
    reason = gemm_ws_refusal(M, N, K, block_M, block_N, block_K, num_stages, consumers, group_m, staged)
    if reason:
        raise ValueError(reason)
    ST = num_stages
    CT = WARP_GROUP * consumers
    k_tiles = K // block_K
    tiles_N = N // block_N
    regs = block_M * block_N // CT  # fp32 accumulator registers per consumer thread
    producer_nreg, consumer_nreg = NREG[consumers]
    policy = T.GemmWarpPolicy.FullRow

    def tile_row(tile):
        if group_m is None:
            return tile // tiles_N * block_M
        in_group = group_m * tiles_N
        return (tile // in_group * group_m + tile % in_group % group_m) * block_M

    def tile_col(tile):
        if group_m is None:
            return tile % tiles_N * block_N
        return tile % (group_m * tiles_N) // group_m * block_N

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel((M // block_M) * tiles_N, threads=CT + PRODUCER_THREADS) as bx:
            A_s = T.alloc_shared((ST, block_M, block_K), dtype)
            B_s = T.alloc_shared((ST, block_N, block_K), dtype)
            C_l = T.alloc_fragment((block_M, block_N), accum_dtype)
            full = T.alloc_barrier(arrive_count=[PRODUCER_THREADS] * ST)
            empty = T.alloc_barrier(arrive_count=[CT] * ST)
            tx = T.get_thread_binding()
            m, n = tile_row(bx), tile_col(bx)

            if tx >= CT:  # producer warp group: TMA only
                T.set_max_nreg(producer_nreg, 0)
                for k in T.serial(k_tiles):
                    T.barrier_wait(empty[k % ST], ((k // ST) & 1) ^ 1)
                    T.tma_copy(A[m : m + block_M, k * block_K : k * block_K + block_K], A_s[k % ST, :, :], barrier=full[k % ST])
                    T.tma_copy(B[n : n + block_N, k * block_K : k * block_K + block_K], B_s[k % ST, :, :], barrier=full[k % ST])
                    T.barrier_arrive(full[k % ST])
            else:  # consumer warp groups
                T.set_max_nreg(consumer_nreg, 1)
                T.barrier_wait(full[0], 0)
                T.wgmma_gemm(A_s[0, :, :], B_s[0, :, :], C_l, transpose_B=True, policy=policy, clear_accum=True)
                if not deferred:
                    T.wait_wgmma(0)
                    T.warpgroup_fence_operand(C_l, num_regs=regs)
                    T.barrier_arrive(empty[0])
                for k in T.serial(1, k_tiles):
                    T.barrier_wait(full[k % ST], (k // ST) & 1)
                    T.wgmma_gemm(A_s[k % ST, :, :], B_s[k % ST, :, :], C_l, transpose_B=True, policy=policy)
                    if deferred:  # step k-1's WGMMAs are done: hand its stage back
                        T.wait_wgmma(1)
                        T.warpgroup_fence_operand(C_l, num_regs=regs)
                        T.barrier_arrive(empty[(k - 1) % ST])
                    else:
                        T.wait_wgmma(0)
                        T.warpgroup_fence_operand(C_l, num_regs=regs)
                        T.barrier_arrive(empty[k % ST])
                T.wait_wgmma(0)
                T.warpgroup_fence_operand(C_l, num_regs=regs)
                if staged:
                    C_s = T.alloc_shared((block_M, block_N), dtype)
                    T.copy(C_l, C_s)
                    T.copy(C_s, C[m : m + block_M, n : n + block_N])
                else:
                    T.copy(C_l, C[m : m + block_M, n : n + block_N])

    return main


def gemm_ws_refusal(M, N, K, block_M, block_N, block_K, num_stages=4, consumers=2, group_m=8, staged=True, **_):
    """Why a config cannot build a problem (None: it can)."""
    if M % block_M or N % block_N or K % block_K:
        return f"M, N, K must be multiples of block_M={block_M}, block_N={block_N}, block_K={block_K} (no partial tiles)"
    if consumers not in NREG:
        return f"consumers={consumers}: 1 or 2 consumer warp groups"
    if block_M % (64 * consumers):
        return f"block_M={block_M} must give each of {consumers} consumer warp groups a multiple of 64 rows (one WGMMA's M)"
    if block_M * block_N // (WARP_GROUP * consumers) > NREG[consumers][1] - 64:
        return f"a {block_M}x{block_N} fp32 accumulator over {consumers} warp group(s) leaves too few of {NREG[consumers][1]} registers"
    if num_stages < 2 or K // block_K < 2:
        return "needs num_stages >= 2 and at least 2 k steps (the first step is peeled)"
    if group_m is not None and (M // block_M) % group_m:
        return f"group_m={group_m} must divide the {M // block_M} tile rows"
    footprint = gemm_ws_footprint("cuda", block_M, block_N, block_K, num_stages, staged)["shared.dyn"]
    if footprint > SHARED_BYTES:
        return f"{footprint} bytes of shared memory (stages + staged output) is over sm_90's {SHARED_BYTES}"
    return None


def gemm_ws_validate(dialect, **sizes_and_axes):
    """``kernel_sweep``'s validate: the refusal, for the CUDA body (the only one)."""
    return gemm_ws_refusal(**sizes_and_axes)


def gemm_ws_footprint(dialect, block_M, block_N, block_K, num_stages=4, staged=True, **_):
    """Shared bytes the body allocates: the A and B tiles per stage, and the staged output tile."""
    stage = (block_M + block_N) * block_K * 2
    return {"shared.dyn": stage * num_stages + (block_M * block_N * 2 if staged else 0)}


def inputs(device, M, N, K, dtype):
    import torch

    dtype = getattr(torch, dtype)
    return [torch.randn(M, K, dtype=dtype, device=device), torch.randn(N, K, dtype=dtype, device=device)]


def reference(A, B):
    return (A.float() @ B.float().T).to(A.dtype)


def cublas(A, B):
    return A @ B.T
