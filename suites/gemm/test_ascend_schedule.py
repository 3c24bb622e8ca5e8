"""What tilelang's Ascend scheduler does with each config: num_stages 1..4 x tiles x
``enable_offset``, on the persistent bf16 GEMM of the Ascend README (4 cores).

Each compile item carries the Z3 schedule.  Two tiles are outside the on-chip budget and skipped
before compiling: 256x256x1024 (1 MiB of L1 at one version) and 256x512x64 (a 512 KiB L0C
accumulator, which tilelang would lower without complaint).
"""

from tlbench.suites.gemm.sweep import GEMM, config, problem

from tlbench import kernel_sweep

TILES = [(128, 128, 128), (128, 256, 64), (256, 128, 64), (256, 256, 64), (256, 256, 1024), (256, 512, 64)]

SWEEP = kernel_sweep(
    "gemm", **(GEMM | {"vendor": None, "vendor_label": None}),  # schedule facts only: no vendor item
    sweep_name="ascend_schedule",
    description="Ascend Z3 schedule: num_stages 1..4 x tiles x enable_offset",
    sizes=[problem(4096, 4096, 4096, "bfloat16", out_dtype="float32")],
    smoke=[problem(512, 512, 1024, "bfloat16", out_dtype="float32")],
    configs=[
        config(m, n, k, 128, "auto", s, num_cores=4, enable_offset=offset)
        for m, n, k in TILES
        for s in (1, 2, 3, 4)
        for offset in (False, True)
    ],
    backends=("ascend",),
    quick=(),  # the quick scope takes the Z3 II per stage from suites/gemm/test_stages.py
)


def test_ascend_schedule(tlbench):
    tlbench.run()
