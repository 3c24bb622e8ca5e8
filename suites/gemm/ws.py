"""A hand warp-specialized Hopper GEMM whose consumers keep one WGMMA in flight, for
suites/gemm/test_gemm_ws.py: ``C = A @ B^T`` (A: M x K, B: N x K, fp16 in, fp32 accumulate, fp16
out).

The algorithm of tilelang's example_warp_specialize_gemm_barrierpipe_stage2.py (a TMA producer
warp group handing shared-memory stages to consumer warp groups through full and empty
mbarriers), plus: ``deferred`` (``wgmma.wait_group 1``, so only the previous step's stage is handed
back while this step's WGMMAs run; tilelang's automatic warp specialization waits with
``wait_group 0``), ``consumers``, ``group_m``, ``staged``, ``persistent`` and ``cluster=2``
(2-CTA clusters sharing B, ``ClusterPair``).
"""

import tilelang.language as T

from .raster import tile_origin  # the built-in GEMM's tile order, shared (suites/gemm/raster.py)

from .ws_limits import NREG, PRODUCER_THREADS, WARP_GROUP, gemm_ws_refusal


class ClusterPair:
    """The launch, tile order and stage hand-back of one block, alone or in a 2-CTA cluster
    whose pair shares one B tile (rank 0 multicasts it by TMA; every consumer also arrives at
    the peer's ``empty`` barrier; cluster barriers keep remote arrivals in the peer's lifetime)."""

    def __init__(self, cluster, consumer_threads, tiles_N, block_M, block_N, group_m):
        self.cluster = cluster
        self.release_count = consumer_threads + (consumer_threads // 32 if cluster == 2 else 0)
        if cluster == 1:
            self.tile_row, self.tile_col = tile_origin(tiles_N, block_M, block_N, group_m)
        else:  # tile t is rank t % 2 of pair t // 2; pairs in the panel order of 2*block_M x block_N tiles
            pair_row, pair_col = tile_origin(tiles_N, 2 * block_M, block_N, group_m)
            self.tile_row = lambda tile: pair_row(tile // 2) + tile % 2 * block_M
            self.tile_col = lambda tile: pair_col(tile // 2)

        @T.macro
        def release(barriers, stage):
            T.barrier_arrive(barriers[stage])
            if cluster == 2:
                if T.get_thread_binding() % 32 == 0:
                    T.ptx_arrive_cluster_barrier(barriers[stage], 1 - T.block_rank_in_cluster())

        @T.macro
        def load_B(src, dst, barriers, stage):
            if cluster == 2:
                T.tma_copy(src, dst, barrier=barriers[stage], cluster_mask=0b11)
            else:
                T.tma_copy(src, dst, barrier=barriers[stage])

        @T.macro
        def sync():
            if cluster == 2:
                T.cluster_sync()

        self.release, self.load_B, self.start, self.finish = release, load_B, sync, sync

    def kernel(self, blocks, threads):
        if self.cluster == 1:
            return T.Kernel(blocks, threads=threads)
        return T.ClusterKernel(blocks, cluster_dims=(2, 1, 1), threads=threads)


def gemm_ws_cuda(M, N, K, block_M, block_N, block_K, num_stages=4, consumers=2, deferred=True, group_m=8,
                 staged=True, persistent=None, pingpong=False, lazy_store=False, cluster=1, store_slices=1,
                 dtype="float16", accum_dtype="float32"):
    reason = gemm_ws_refusal(M, N, K, block_M, block_N, block_K, num_stages, consumers, group_m, staged, persistent,
                             pingpong, deferred, lazy_store, cluster, store_slices)
    if reason:
        raise ValueError(reason)
    if persistent:
        return gemm_ws_persistent_cuda(M, N, K, block_M, block_N, block_K, num_stages, consumers, deferred, group_m,
                                       staged, persistent, pingpong, lazy_store, cluster, store_slices, dtype,
                                       accum_dtype)
    ST = num_stages
    CT = WARP_GROUP * consumers
    k_tiles = K // block_K
    tiles_N = N // block_N
    regs = block_M * block_N // CT  # fp32 accumulator registers per consumer thread
    producer_nreg, consumer_nreg = NREG[consumers]
    policy = T.GemmWarpPolicy.FullRow

    pair = ClusterPair(cluster, CT, tiles_N, block_M, block_N, group_m)

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), dtype)):
        with pair.kernel((M // block_M) * tiles_N, threads=CT + PRODUCER_THREADS) as bx:
            A_s = T.alloc_shared((ST, block_M, block_K), dtype)
            B_s = T.alloc_shared((ST, block_N, block_K), dtype)
            C_l = T.alloc_fragment((block_M, block_N), accum_dtype)
            full = T.alloc_barrier(arrive_count=[PRODUCER_THREADS] * ST)
            empty = T.alloc_barrier(arrive_count=[pair.release_count] * ST)
            tx = T.get_thread_binding()
            m, n = pair.tile_row(bx), pair.tile_col(bx)
            pair.start()

            if tx >= CT:  # producer warp group: TMA only
                T.set_max_nreg(producer_nreg, 0)
                for k in T.serial(k_tiles):
                    T.barrier_wait(empty[k % ST], ((k // ST) & 1) ^ 1)
                    T.tma_copy(A[m : m + block_M, k * block_K : k * block_K + block_K], A_s[k % ST, :, :], barrier=full[k % ST])
                    pair.load_B(B[n : n + block_N, k * block_K : k * block_K + block_K], B_s[k % ST, :, :], full, k % ST)
                    T.barrier_arrive(full[k % ST])
            else:  # consumer warp groups
                T.set_max_nreg(consumer_nreg, 1)
                T.barrier_wait(full[0], 0)
                T.wgmma_gemm(A_s[0, :, :], B_s[0, :, :], C_l, transpose_B=True, policy=policy, clear_accum=True)
                if not deferred:
                    T.wait_wgmma(0)
                    T.warpgroup_fence_operand(C_l, num_regs=regs)
                    pair.release(empty, 0)
                for k in T.serial(1, k_tiles):
                    T.barrier_wait(full[k % ST], (k // ST) & 1)
                    T.wgmma_gemm(A_s[k % ST, :, :], B_s[k % ST, :, :], C_l, transpose_B=True, policy=policy)
                    if deferred:  # step k-1's WGMMAs are done: hand its stage back
                        T.wait_wgmma(1)
                        T.warpgroup_fence_operand(C_l, num_regs=regs)
                        pair.release(empty, (k - 1) % ST)
                    else:
                        T.wait_wgmma(0)
                        T.warpgroup_fence_operand(C_l, num_regs=regs)
                        pair.release(empty, k % ST)
                T.wait_wgmma(0)
                T.warpgroup_fence_operand(C_l, num_regs=regs)
                if staged:
                    C_s = T.alloc_shared((block_M, block_N), dtype)
                    T.copy(C_l, C_s)
                    T.copy(C_s, C[m : m + block_M, n : n + block_N])
                else:
                    T.copy(C_l, C[m : m + block_M, n : n + block_N])
            pair.finish()

    return main


def persistent_grid(M, N, block_M, block_N, sms):
    """Blocks launched: one per SM, or one per tile when there are fewer tiles."""
    return min(sms, (M // block_M) * (N // block_N))


def gemm_ws_persistent_cuda(M, N, K, block_M, block_N, block_K, num_stages, consumers, deferred, group_m, staged, sms,
                            pingpong, lazy_store=False, cluster=1, store_slices=1, dtype="float16",
                            accum_dtype="float32"):
    """A prim_func of ``min(sms, tiles)`` blocks; block ``b`` computes tiles ``b, b + grid, ...``,
    one global step count through the stage ring so the producer runs ahead into the next tile.
    ``pingpong``: two consumers with their own accumulators take alternate tiles (an order barrier
    runs one's epilogue under the other's main loop); ``lazy_store`` waits for a tile's TMA store
    only before the next epilogue; ``store_slices`` (2 or 4) stores column slices."""
    ST = num_stages
    CT = WARP_GROUP * consumers
    k_tiles = K // block_K
    tiles_N = N // block_N
    tiles = (M // block_M) * tiles_N
    grid = persistent_grid(M, N, block_M, block_N, sms)
    local_tiles = -(-tiles // grid)  # the most tiles one block computes (block b: those below tiles - b)
    mma_threads = WARP_GROUP if pingpong else CT  # threads that share one accumulator
    regs = block_M * block_N // mma_threads
    producer_nreg, consumer_nreg = NREG[consumers]
    policy = T.GemmWarpPolicy.FullRow

    pair = ClusterPair(cluster, mma_threads, tiles_N, block_M, block_N, group_m)
    tile_row, tile_col = pair.tile_row, pair.tile_col
    slice_N = block_N // store_slices
    C_s_shape = (block_M, block_N) if store_slices == 1 else (2, block_M, slice_N)

    @T.macro
    def produce(A, B, A_s, B_s, full, empty, bx):
        T.set_max_nreg(producer_nreg, 0)
        for it in T.serial(local_tiles):
            if bx + it * grid < tiles:
                m, n = tile_row(bx + it * grid), tile_col(bx + it * grid)
                for k in T.serial(k_tiles):
                    g = it * k_tiles + k
                    T.barrier_wait(empty[g % ST], ((g // ST) & 1) ^ 1)
                    T.tma_copy(A[m : m + block_M, k * block_K : k * block_K + block_K], A_s[g % ST, :, :], barrier=full[g % ST])
                    pair.load_B(B[n : n + block_N, k * block_K : k * block_K + block_K], B_s[g % ST, :, :], full, g % ST)
                    T.barrier_arrive(full[g % ST])

    @T.macro
    def mainloop(A_s, B_s, C_l, full, empty, it):
        g0 = it * k_tiles
        T.barrier_wait(full[g0 % ST], (g0 // ST) & 1)
        T.wgmma_gemm(A_s[g0 % ST, :, :], B_s[g0 % ST, :, :], C_l, transpose_B=True, policy=policy, clear_accum=True)
        if not deferred:
            T.wait_wgmma(0)
            T.warpgroup_fence_operand(C_l, num_regs=regs)
            pair.release(empty, g0 % ST)
        for k in T.serial(1, k_tiles):
            T.barrier_wait(full[(g0 + k) % ST], ((g0 + k) // ST) & 1)
            T.wgmma_gemm(A_s[(g0 + k) % ST, :, :], B_s[(g0 + k) % ST, :, :], C_l, transpose_B=True, policy=policy)
            if deferred:  # step g0+k-1's WGMMAs are done: hand its stage back
                T.wait_wgmma(1)
                T.warpgroup_fence_operand(C_l, num_regs=regs)
                pair.release(empty, (g0 + k - 1) % ST)
            else:
                T.wait_wgmma(0)
                T.warpgroup_fence_operand(C_l, num_regs=regs)
                pair.release(empty, (g0 + k) % ST)

    @T.macro
    def finish(C, C_l, C_s, empty, it, m, n):
        T.wait_wgmma(0)
        T.warpgroup_fence_operand(C_l, num_regs=regs)
        if deferred:  # the tile's last stage: the producer may refill it during the epilogue
            pair.release(empty, (it * k_tiles + k_tiles - 1) % ST)
        if store_slices > 1:  # slice q through buffer q % 2, once the store two slices back has read it
            for q in T.unroll(store_slices):
                T.tma_store_wait(1)
                T.copy(C_l[:, q * slice_N : (q + 1) * slice_N], C_s[q % 2, :, :])
                T.tma_copy(C_s[q % 2, :, :], C[m : m + block_M, n + q * slice_N : n + (q + 1) * slice_N])
        elif staged and lazy_store:  # wait for the previous tile's store only when C_s is needed again
            T.tma_store_wait(0)
            T.copy(C_l, C_s)
            T.tma_copy(C_s, C[m : m + block_M, n : n + block_N])
        elif staged:
            T.copy(C_l, C_s)
            T.copy(C_s, C[m : m + block_M, n : n + block_N])
        else:
            T.copy(C_l, C[m : m + block_M, n : n + block_N])

    @T.macro
    def drain_stores():
        if staged and lazy_store:  # shared memory must outlive the last store's reads (store_slices needs lazy_store)
            T.tma_store_wait(0)

    if not pingpong:

        @T.prim_func
        def cooperative(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), dtype)):
            with pair.kernel(grid, threads=CT + PRODUCER_THREADS) as bx:
                A_s = T.alloc_shared((ST, block_M, block_K), dtype)
                B_s = T.alloc_shared((ST, block_N, block_K), dtype)
                C_l = T.alloc_fragment((block_M, block_N), accum_dtype)
                C_s = T.alloc_shared(C_s_shape, dtype) if staged else None
                full = T.alloc_barrier(arrive_count=[PRODUCER_THREADS] * ST)
                empty = T.alloc_barrier(arrive_count=[pair.release_count] * ST)
                tx = T.get_thread_binding()
                pair.start()
                if tx >= CT:
                    produce(A, B, A_s, B_s, full, empty, bx)
                else:
                    T.set_max_nreg(consumer_nreg, 1)
                    for it in T.serial(local_tiles):
                        if bx + it * grid < tiles:
                            mainloop(A_s, B_s, C_l, full, empty, it)
                            finish(C, C_l, C_s, empty, it, tile_row(bx + it * grid), tile_col(bx + it * grid))
                    drain_stores()
                pair.finish()

        return cooperative

    @T.macro
    def consume_alternate(C, A_s, B_s, C_l, C_s, full, empty, order, bx, c):
        T.set_max_nreg(consumer_nreg, 1)
        for j in T.serial((local_tiles - c + 1) // 2):
            if bx + (2 * j + c) * grid < tiles:  # local tile 2j+c
                if j + c > 0:  # the other consumer has issued local tile 2j+c-1's last WGMMAs
                    T.barrier_wait(order[c], (j + c + 1) & 1)
                mainloop(A_s, B_s, C_l, full, empty, 2 * j + c)
                T.barrier_arrive(order[1 - c])
                finish(C, C_l, C_s, empty, 2 * j + c, tile_row(bx + (2 * j + c) * grid), tile_col(bx + (2 * j + c) * grid))
        drain_stores()

    @T.prim_func
    def pingpong_kernel(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), dtype)):
        with pair.kernel(grid, threads=CT + PRODUCER_THREADS) as bx:
            A_s = T.alloc_shared((ST, block_M, block_K), dtype)
            B_s = T.alloc_shared((ST, block_N, block_K), dtype)
            C_l0 = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_l1 = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_s0 = T.alloc_shared((block_M, block_N), dtype) if staged else None
            C_s1 = T.alloc_shared((block_M, block_N), dtype) if staged else None
            full = T.alloc_barrier(arrive_count=[PRODUCER_THREADS] * ST)
            empty = T.alloc_barrier(arrive_count=[pair.release_count] * ST)
            order = T.alloc_barrier(arrive_count=[WARP_GROUP] * 2)
            tx = T.get_thread_binding()
            pair.start()
            if tx >= CT:
                produce(A, B, A_s, B_s, full, empty, bx)
            elif tx < WARP_GROUP:
                consume_alternate(C, A_s, B_s, C_l0, C_s0, full, empty, order, bx, 0)
            else:
                consume_alternate(C, A_s, B_s, C_l1, C_s1, full, empty, order, bx, 1)
            pair.finish()

    return pingpong_kernel
