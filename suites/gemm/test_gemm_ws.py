"""The hand warp-specialized Hopper GEMM (body: suites/gemm/ws.py), fp16, ``C = A @ B^T``, at
1024^3 .. 8192^3 beside cuBLAS: does keeping one WGMMA in flight (``deferred``) close the gap
tilelang's automatic warp specialization leaves?  Tiles over stages and consumer groups, some with
and without the deferred wait, persistent (cooperative, ping-pong) and 2-CTA cluster configs.
CUDA only (sm_90a); a config over shared memory or warp-group rows is skipped before compiling."""

from tlbench.harness.sweep_api import kernel_sweep

K = "tlbench.suites.gemm.ws:"
LIMITS = "tlbench.suites.gemm.ws_limits:"


H200_SMS = 132  # the persistent configs launch one block per SM


def ws(block_M, block_N, block_K, num_stages, consumers, deferred=True, group_m=8, staged=True, persistent=None,
       pingpong=False, lazy_store=False, cluster=1, store_slices=1):
    config = dict(block_M=block_M, block_N=block_N, block_K=block_K, num_stages=num_stages, consumers=consumers,
                  deferred=deferred, group_m=group_m, staged=staged)
    # the later keys only where set: the configs from before them keep their ids
    return (config | ({"persistent": persistent} if persistent else {}) | ({"pingpong": True} if pingpong else {})
            | ({"lazy_store": True} if lazy_store else {}) | ({"cluster": cluster} if cluster > 1 else {})
            | ({"store_slices": store_slices} if store_slices > 1 else {}))


def persistent(*args, **kwargs):
    return ws(*args, persistent=H200_SMS, **kwargs)


CONFIGS = (
    # 128 or more blocks at 1024^3 (the H200 has 132 SMs)
    [ws(64, 128, 64, s, 1) for s in (4, 6, 8)] + [ws(64, 128, 64, 6, 1, deferred=False)]
    + [ws(64, 128, 128, s, 1) for s in (3, 4)]
    + [ws(128, 64, 64, s, 2) for s in (4, 6)]
    # the 128x128 tile, and the large tiles of CUTLASS's cooperative kernels
    + [ws(128, 128, 64, s, 2) for s in (4, 6)] + [ws(128, 128, 64, 4, 2, deferred=False)]
    + [ws(128, 128, 128, 3, 2)]
    + [ws(128, 256, 64, 3, 2), ws(128, 256, 64, 4, 2, staged=False), ws(128, 256, 64, 3, 2, deferred=False),
       ws(128, 256, 64, 3, 2, group_m=16)]
    + [ws(256, 128, 64, 3, 2), ws(256, 128, 64, 4, 2, staged=False)]
    # persistent, cooperative: the producer loads the next tile's stages under the epilogue
    + [persistent(128, 256, 64, 3, 2), persistent(128, 256, 64, 3, 2, group_m=16),
       persistent(128, 256, 64, 4, 2, staged=False), persistent(128, 128, 64, 6, 2), persistent(256, 128, 64, 3, 2)]
    # persistent ping-pong: each consumer its own accumulator, one's epilogue under the other's main loop
    + [persistent(128, 128, 64, s, 2, pingpong=True) for s in (4, 5)]
    + [persistent(128, 128, 64, 6, 2, pingpong=True, staged=False), persistent(128, 128, 64, 4, 2, pingpong=True, group_m=16),
       persistent(64, 256, 64, 4, 2, pingpong=True)]
    # the epilogue's TMA store waited for only when its shared tile is written again
    + [persistent(128, 256, 64, 3, 2, lazy_store=True), persistent(128, 256, 64, 3, 2, group_m=16, lazy_store=True),
       persistent(128, 128, 64, 6, 2, lazy_store=True), persistent(128, 128, 64, 5, 2, pingpong=True, lazy_store=True)]
    # 2-CTA clusters: the pair's B tile loaded once, by TMA multicast (group_m counts row pairs)
    + [ws(128, 256, 64, 3, 2, cluster=2), ws(128, 128, 64, 4, 2, group_m=4, cluster=2)]
    + [persistent(128, 256, 64, 3, 2, lazy_store=True, cluster=2), persistent(128, 256, 64, 3, 2, group_m=4, lazy_store=True, cluster=2),
       persistent(128, 128, 64, 6, 2, lazy_store=True, cluster=2)]
    + [persistent(128, 128, 64, s, 2, pingpong=True, lazy_store=True, cluster=2) for s in (4, 5)]
    # the output through two quarter-tile buffers: a 128x256 tile with four stages
    + [persistent(128, 256, 64, s, 2, group_m=g, lazy_store=True, store_slices=4) for s, g in ((3, 16), (4, 16), (4, 8))]
)

SWEEP = kernel_sweep(
    "gemm_ws", {"cuda": K + "gemm_ws_cuda"},
    sizes=[{"M": s, "N": s, "K": s, "dtype": "float16"} for s in (1024, 2048, 4096, 8192)],
    smoke={"M": 1024, "N": 1024, "K": 1024, "dtype": "float16"},
    # quick: the main job's 8192^3 with the fastest config of the H200 and H100 runs, so its summary
    # prints the GEMM portability tax against the one body of suites/gemm/test_stages.py (the rest:
    # --tlbench-scope=smoke or full; the whole sweep's compile items cost minutes on a small CPU box)
    quick=[{"M": 8192, "N": 8192, "K": 8192, "dtype": "float16"}],
    quick_configs=[persistent(128, 256, 64, 3, 2, group_m=16, lazy_store=True, store_slices=4)],
    configs=CONFIGS,
    inputs=LIMITS + "inputs", reference=LIMITS + "reference", validate=LIMITS + "gemm_ws_validate",
    footprint=LIMITS + "gemm_ws_footprint", vendor=LIMITS + "cublas", vendor_label="torch: A @ B.T (cuBLAS), fp16 out",
    flops=lambda M, N, K, dtype: 2 * M * N * K,
    bytes_moved=lambda M, N, K, dtype: 2 * (M * K + N * K + M * N),
    description="hand warp-specialized GEMM fp16 (deferred WGMMA wait), 1k..8k cubed, vs cuBLAS",
)


def test_gemm_ws(tlbench):
    tlbench.run()
