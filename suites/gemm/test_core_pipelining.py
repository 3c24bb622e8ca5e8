"""Cube/Vector core pipelining: GEMM + ReLU epilogue in one kernel, on both backends.

Ascend: a persistent kernel of 4 cores (Cube K-loop into L0C, L0C -> UB, ``T.SimtVF`` ReLU, UB ->
GM) whose Z3 tile-loop schedule says whether tile t's Vector work overlaps tile t+1's Cube work
(``plan.schedule_model.core_pipelining``).  NVIDIA: the ReLU on the register fragment, one block
per tile.  bf16 in, fp32 out.
"""

from tlbench.suites.gemm.sweep import GEMM, config, problem

from tlbench import kernel_sweep

ASCEND_TILES = [(128, 128, 128), (128, 256, 64), (256, 128, 64)]
NVIDIA_TILES = [(128, 128, 64, 128), (128, 256, 64, 256)]

SWEEP = kernel_sweep(
    "gemm", **GEMM,
    sweep_name="core_pipelining",
    description="GEMM+ReLU: does Vector work of tile t overlap Cube work of tile t+1, by tile and num_stages",
    sizes=[problem(2048, 2048, 2048, "bfloat16", out_dtype="float32", epilogue="relu")],
    smoke=[problem(512, 512, 1024, "bfloat16", out_dtype="float32", epilogue="relu")],
    # quick scope: one Cube/Vector overlap case per backend
    quick=[problem(2048, 2048, 2048, "bfloat16", out_dtype="float32", epilogue="relu")],
    quick_configs={
        "ascend": [config(128, 256, 64, 128, "auto", 2, num_cores=4)],
        "cuda": [config(128, 256, 64, 256, "auto", 2)],
    },
    configs={
        "ascend": [config(m, n, k, 128, "auto", s, num_cores=4) for m, n, k in ASCEND_TILES for s in (1, 2, 3)],
        "cuda": [config(m, n, k, t, "auto", s) for m, n, k, t in NVIDIA_TILES for s in (1, 2, 3)],
    },
)


def test_core_pipelining(tlbench):
    tlbench.run()
