"""The tile sweep on NVIDIA: which tile, threads, stages, rasterization and epilogue win.

fp16 ``C = A @ B^T`` at 1024^3 .. 8192^3: 128/256 x 128/256 tiles at block_K 64, 2..4 stages,
panels of 8 or 16 rows or none, staged output on/off, and small or deep-K tiles for the small
shapes (a 128x128 tile leaves the H200's 132 SMs idle at 1024^3); cuBLAS in the same run.
Configs that cannot work are pruned with the reason; device items only.  With
``--tlbench-autotune`` the winner per problem goes to results/best_configs.json.
"""

from tlbench.suites.gemm.sweep import GEMM, axes_configs, config, problem

from tlbench import kernel_sweep

SWEEP = kernel_sweep(
    "gemm", **GEMM,
    sweep_name="tiles",
    description="tiles x stages x rasterization x staged output, fp16 GEMM, vs cuBLAS",
    sizes=[problem(2048, 2048, 2048, "float16"), problem(4096, 4096, 4096, "float16"),
           problem(8192, 8192, 8192, "float16")],
    smoke=[problem(1024, 1024, 1024, "float16")],
    # the hand-picked configs first, then the cross product (the first config is the base the
    # inert-key probe varies one axis of)
    configs=[config(128, 128, 64, 128, "auto", s, group_m=8, stage_output=True) for s in (3, 4)]
    + [config(bm, bn, 64, 128, "auto", s, group_m=8, stage_output=True)
       for bm, bn in ((64, 128), (128, 64), (64, 64)) for s in (3, 4)]
    + [config(bm, bn, 128, 128, "auto", s, group_m=8, stage_output=True)
       for bm, bn in ((64, 128), (128, 64)) for s in (2, 3, 4)]
    + [config(bm, bn, 128, 256, "auto", s, group_m=8, stage_output=True)
       for bm, bn in ((64, 128), (128, 64)) for s in (3, 4)]
    + [config(64, 128, 64, 128, "auto", s, group_m=8, stage_output=True) for s in (6, 8)]
    + [config(bm, bn, 128, 256, "auto", 2, group_m=8, stage_output=True) for bm, bn in ((128, 256), (256, 128))]
    + [config(64, 128, 256, t, "auto", 2, group_m=8, stage_output=True) for t in (128, 256)]
    + [config(64, 128, 128, 256, "auto", s, group_m=None, stage_output=so) for s in (3, 4) for so in (False, True)]
    + axes_configs(
        block_M=(128, 256),
        block_N=(128, 256),
        block_K=(64,),
        num_stages=(2, 3, 4),
        threads=(256,),
        group_m=(None, 8, 16),
        stage_output=(False, True),
    ),
    backends=("nvidia",),
    quick=(),  # full scope only
    kinds=("device",),
    probe_inert_keys=True,
    best_configs="results/best_configs.json",
)


def test_tiles(tlbench):
    tlbench.run()
