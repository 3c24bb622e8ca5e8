"""What tilelang's Ascend scheduler does with the one flash-attention body (compile items only).

Each item carries the KV loop's Z3 schedule under ``plan.schedule_model``: modeled cycles, never
a time (the SIMD exp regions' cost is EstimateLatency's guess).  Configs: num_stages 1..4, manual,
serial at 128x128, 128x64 s3, 128x128 s3 with ``enable_offset``, and two pruned before compiling:
block_M=256 (UB overflow) and block_M=64 (32 rows per sub-core do not fill a 64-lane VReg).
Smoke: 128x128 s3 and the two pruned configs.
"""

from tlbench.suites.flash_attention.sweep import FA, config, problem, stage_configs

from tlbench import kernel_sweep

SWEEP = kernel_sweep(
    "flash_attention", **(FA | {"vendor": None, "vendor_label": None}),  # compile items: no vendor item
    sweep_name="fa_ascend_schedule",
    description="flash attention on Ascend: Z3 KV-loop schedule per num_stages, tile and loop form (modeled cycles)",
    sizes=[problem(batch=2, heads=16, seq=4096, dim=128)],
    # quick: one Z3 schedule (a few lowerings with the compile rounds) and the two refusals (free)
    quick=[problem(batch=1, heads=2, seq=1024, dim=128)],
    quick_configs=[config(128, 128, 3), config(256, 128, 2), config(64, 128, 2)],
    smoke=[problem(batch=1, heads=2, seq=1024, dim=128)],
    configs=[
        *stage_configs([(128, 128, 128)], num_stages=range(1, 5)),
        config(128, 64, 3),
        config(128, 128, 3, enable_offset=True),  # as the published kernel pipelines: II reaches the Cube bound
        config(256, 128, 2),
        config(64, 128, 2),
    ],
    smoke_configs=[config(128, 128, 3), config(256, 128, 2), config(64, 128, 2)],
    backends=("ascend",),
    kinds=("compile",),
)


def test_fa_ascend_schedule(tlbench):
    tlbench.run()
