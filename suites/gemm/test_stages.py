"""The stage sweep: one GEMM body, the seed's three loop forms, num_stages 0..4, two tiles.

fp16 ``C = A @ B^T`` at 8192^3 (full, quick) and 1024^3 (smoke), tiles 128x128x32 t128 and
128x256x64 t256; ``auto`` at num_stages 0..4, ``manual`` and ``serial``; cuBLAS as its own item.
"""

from tlbench.suites.gemm.sweep import GEMM, problem, stage_configs

from tlbench import kernel_sweep

SWEEP = kernel_sweep(
    "gemm", **GEMM,
    sweep_name="stages",
    description="num_stages 0..4, manual and serial loops, two tiles, fp16 GEMM",
    sizes=[problem(8192, 8192, 8192, "float16")],
    smoke=[problem(1024, 1024, 1024, "float16")],
    quick=[problem(8192, 8192, 8192, "float16")],  # the whole stage curve, both tiles
    configs=stage_configs([(128, 128, 32, 128), (128, 256, 64, 256)], num_stages=range(5)),
)


def test_stages(tlbench):
    tlbench.run()
