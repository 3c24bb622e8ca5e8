"""Causal flash attention: the one body with the diagonal mask, on both backends, against
torch SDPA (``is_causal=True``) on the same inputs.

bf16, D=128, S=4096 and 8192, B*H = 32 (smoke: S=1024, B*H = 2); three shared-body configs, and on
NVIDIA the ``hopper_ws`` body (128x128, and 128x192 with fast math).  FLOPs count the attended
pairs exactly.  Device items only.
"""

from tlbench.suites.flash_attention.sweep import FA, config, problem

from tlbench import kernel_sweep

SWEEP = kernel_sweep(
    "flash_attention", **FA,
    sweep_name="fa_causal",
    description="causal flash attention: one body, both backends, vs SDPA is_causal",
    sizes=[problem(batch=2, heads=16, seq=s, dim=128, causal=True) for s in (4096, 8192)],
    quick=(),  # out of the quick scope until it declares its quick block
    smoke=[problem(batch=1, heads=2, seq=1024, dim=128, causal=True)],
    # 128x128 s1 is the fastest shared-body config non-causal at S=8192 (results/h200-flash-attention/fa-s8192.md)
    configs=[config(128, 128, 1, threads=256), config(128, 128, 2, threads=256), config(128, 64, 3, threads=256),
             config(128, 128, 2, threads=384, body="hopper_ws"), config(128, 192, 2, threads=384, body="hopper_ws", fast_math=True)],
    kinds=("device",),
)


def test_fa_causal(tlbench):
    tlbench.run()
