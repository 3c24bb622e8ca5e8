"""The tile sweep on NVIDIA: which tile, threads, stages, rasterization and epilogue win.

fp16 ``C = A @ B^T`` at 1024^3 (the smoke scope's problem), 2048^3, 4096^3 and 8192^3 across block_M x block_N in {128, 256}^2,
block_K 64, num_stages 2..4, 256 threads, tile rasterization in panels of 8 or 16 rows or none,
and the output staged through shared memory on/off, plus 128x128 tiles on 128 threads,
the small tiles 64x128, 128x64 and 64x64 on 128 threads (at 1024^3 a 128x128 tile makes 64
blocks for the H200's 132 SMs; 64x128 makes 128, 64x64 makes 256), 64x128 and 128x64 also
with block_K 128 on 128 and 256 threads (tilelang's warp-specialized Hopper loop waits for
each k step's WGMMAs before the next; a deeper k step halves those waits, a second consumer
warpgroup issues while the first waits), 64x128 with block_K 256 in 2 stages, 64x128x128 on
256 threads without rasterization, staged output on and off, 64x128 with 6 and 8 stages of
block_K 64, 128x256 and 256x128 with block_K 128 in 2 stages, and cuBLAS on the same inputs in the
same run.  Split-K and stream-K are their own suites (test_gemm_splitk.py,
test_gemm_streamk.py), run beside this one for the small shapes.  Configs that cannot work (shared memory, warp
partition) are pruned before compiling, with the reason.  At collection the plugin lowers
pairs of configs to flag swept keys that do not change the kernel.  Device items only: the
compile-time story is the stage suite's.  Run with ``--tlbench-autotune`` to record the
winner per problem in results/best_configs.json; the next run times it as a ``best`` case.
The body and what it is declared with: suites/gemm/body.py, suites/gemm/sweep.py.
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
