"""What the hand warp-specialized GEMM (suites/gemm/ws.py) can build, and the suite's side of it.

Contract: ``gemm_ws_refusal(M, N, K, <config>)`` says why a config cannot build (None: it can);
the rest is what suites/gemm/test_gemm_ws.py declares.  No tilelang or torch at import.
"""

PRODUCER_THREADS = 128
WARP_GROUP = 128
# setmaxnreg (producer, consumer) per consumer count: the SM's 64K registers over the block
NREG = {1: (40, 232), 2: (24, 240)}
SHARED_BYTES = 232448  # sm_90's opt-in shared memory per block


def gemm_ws_refusal(M, N, K, block_M, block_N, block_K, num_stages=4, consumers=2, group_m=8, staged=True,
                    persistent=None, pingpong=False, deferred=True, lazy_store=False, cluster=1, store_slices=1, **_):
    """Why a config cannot build a problem (None: it can)."""
    if store_slices != 1 and not (persistent and lazy_store and not pingpong and store_slices in (2, 4)
                                  and block_N % (64 * store_slices) == 0):
        return (f"store_slices={store_slices!r}: 2 or 4 column slices, each a multiple of 64 columns, of a "
                "persistent cooperative epilogue with lazy_store=True")
    if cluster not in (1, 2):
        return f"cluster={cluster!r}: 1 (no cluster) or 2 (a 2-CTA cluster sharing the B tile by TMA multicast)"
    if cluster == 2 and (M // block_M) % 2:
        return f"cluster=2 pairs tile rows: M / block_M = {M // block_M} must be even"
    if cluster == 2 and persistent is not None and persistent % 2:
        return f"cluster=2 launches whole pairs: persistent={persistent} must be even"
    if lazy_store and not (persistent and staged):
        return "lazy_store needs persistent=<SM count> and staged=True (it defers the staged tile's TMA store)"
    if pingpong and not (persistent and consumers == 2 and deferred):
        return "pingpong needs persistent=<SM count>, consumers=2 (one accumulator each) and deferred=True"
    if persistent is not None and (not isinstance(persistent, int) or persistent < 1):
        return f"persistent={persistent!r}: the number of blocks to launch (the device's SM count, 132 on an H200)"
    if M % block_M or N % block_N or K % block_K:
        return f"M, N, K must be multiples of block_M={block_M}, block_N={block_N}, block_K={block_K} (no partial tiles)"
    if consumers not in NREG:
        return f"consumers={consumers}: 1 or 2 consumer warp groups"
    sharing = 1 if pingpong else consumers  # consumer warp groups over one accumulator
    if block_M % (64 * sharing):
        return f"block_M={block_M} must give each of {sharing} consumer warp groups a multiple of 64 rows (one WGMMA's M)"
    if block_M * block_N // (WARP_GROUP * sharing) > NREG[consumers][1] - 64:
        return f"a {block_M}x{block_N} fp32 accumulator over {sharing} warp group(s) leaves too few of {NREG[consumers][1]} registers"
    if num_stages < 2 or K // block_K < 2:
        return "needs num_stages >= 2 and at least 2 k steps (the first step is peeled)"
    if group_m is not None and (M // block_M // cluster) % group_m:
        what = "tile rows" if cluster == 1 else "row pairs of a 2-CTA cluster"
        return f"group_m={group_m} must divide the {M // block_M // cluster} {what}"
    footprint = gemm_ws_footprint("cuda", block_M, block_N, block_K, num_stages, staged, pingpong, store_slices)["shared.dyn"]
    if footprint > SHARED_BYTES:
        return f"{footprint} bytes of shared memory (stages + staged output) is over sm_90's {SHARED_BYTES}"
    return None


def gemm_ws_validate(dialect, **sizes_and_axes):
    """``kernel_sweep``'s validate: the refusal, for the CUDA body (the only one)."""
    return gemm_ws_refusal(**sizes_and_axes)


def gemm_ws_footprint(dialect, block_M, block_N, block_K, num_stages=4, staged=True, pingpong=False, store_slices=1, **_):
    """Shared bytes the body allocates: the A and B tiles per stage, and the staged output tile
    (one per consumer warp group under pingpong; two column slices' worth under store_slices)."""
    stage = (block_M + block_N) * block_K * 2
    out = block_M * block_N * 2 * (2 if pingpong else 1) if store_slices == 1 else 2 * block_M * (block_N // store_slices) * 2
    return {"shared.dyn": stage * num_stages + (out if staged else 0)}


def inputs(device, M, N, K, dtype):
    import torch

    dtype = getattr(torch, dtype)
    return [torch.randn(M, K, dtype=dtype, device=device), torch.randn(N, K, dtype=dtype, device=device)]


def reference(A, B):
    return (A.float() @ B.float().T).to(A.dtype)


def cublas(A, B):
    return A @ B.T
