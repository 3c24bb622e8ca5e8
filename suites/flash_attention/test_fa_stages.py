"""The flash-attention stage sweep: one FA forward body on both backends, the KV loop as
``T.Pipelined(n, num_stages=1..4)``, ``manual`` and ``serial``, two tiles (128x128, 128x64; 256
threads on CUDA), bf16, D=128, B*H = 32, non-causal.

Full scope: S in {1024, 4096, 8192, 16384}; smoke: S=1024, 128x128 s2.  Device items only.  NVIDIA
also times the Hopper bodies (hopper.py, hopper_ws.py), torch SDPA's kernels, the shared body on
128 threads, and block_M=256 as a failed item in tilelang's words; Ascend
``npu_fusion_attention``.  Configs over the on-chip budget are skipped with the bytes named.
"""

from tlbench.suites.flash_attention.sweep import FA, config, problem as fa_problem, stage_configs

from tlbench import kernel_sweep

TILES = [(128, 128, 256), (128, 64, 256)]
HOPPER = [config(128, 128, s, threads=256, body="hopper") for s in (1, 2, 3)]
# The explicitly warp-specialized sm_90a kernel (suites/flash_attention/hopper_ws.py): 2 consumer
# warp groups + 1 TMA producer, intra-warp-group overlap, ping-pong (hopper_ws) or not
# (hopper_ws_ov); block_N=176 is FlashAttention-3's hdim-128 tile (the last key tile is masked).
# block_N=192 was the fastest in the probe on one H200 (0.976x cuDNN at S=8192).
# fast_math=True (-fm): nvcc --use_fast_math, as FlashAttention-3 builds; the probe measured
# bn176 1.811 -> 1.671 ms with it (the same generated CUDA, another nvcc build).
HOPPER_WS = [
    config(128, 192, 2, threads=384, body="hopper_ws"),
    config(128, 176, 2, threads=384, body="hopper_ws"),
    config(128, 128, 2, threads=384, body="hopper_ws"),
    config(128, 176, 2, threads=384, body="hopper_ws_ov"),
    config(128, 192, 2, threads=384, body="hopper_ws", fast_math=True),
    config(128, 176, 2, threads=384, body="hopper_ws", fast_math=True),
    # persistent (-c132): 132 blocks walk the query tiles, the next tile's loads under this one's end
    config(128, 192, 2, threads=384, body="hopper_ws", fast_math=True, num_cores=132),
]
# One warp group for the whole 128-row tile (the t256 tiles above split it over two).
ONE_WARPGROUP = config(128, 128, 2, threads=128)
# block_M=256 on 256 threads: tilelang 0.1.15 refuses it ("Layout infer conflict between
# S_vec and P_vec in T.Parallel loop"); kept as an item so the refusal is recorded in its words.
LAYOUT_CONFLICT = config(256, 128, 2, threads=256)
STAGES = stage_configs(TILES, num_stages=range(1, 5))


def problem(seq: int) -> dict:
    return fa_problem(batch=2, heads=16, seq=seq, dim=128, dtype="bfloat16")


SWEEP = kernel_sweep(
    "flash_attention", **FA,
    sweep_name="fa_stages",
    description="flash attention: num_stages 1..4, manual and serial KV loops, two tiles, one body, bf16",
    sizes=[problem(s) for s in (1024, 4096, 8192, 16384)],
    quick=[problem(8192)],  # quick: the H200 acceptance problem (device items: no CPU cost)
    # quick leaves out the deliberate layout-conflict item: the default job must not fail by design
    quick_configs={"cuda": [*STAGES, *HOPPER, *HOPPER_WS, ONE_WARPGROUP], "ascend": STAGES},
    smoke=[problem(1024)],
    configs={"cuda": [*STAGES, *HOPPER, *HOPPER_WS, ONE_WARPGROUP, LAYOUT_CONFLICT], "ascend": STAGES},
    smoke_configs=[config(128, 128, 2, threads=256)],
    kinds=("device",),
)


def test_fa_stages(tlbench):
    tlbench.run()
