"""Exploration: the one FA body with and without fast math, beside the hand kernel and the vendor, S=8192.

Run from the repo root with suites/ on the path (results/portability-tax/run.sh); non-causal
and causal, B2 H16 D128 bf16.  The one body is ``body="shared"`` (suites/flash_attention/body.py);
``fast_math`` is the compile option tilelang's ``tl.enable_fast_math`` (no change to the body).
"""

from tlbench.suites.flash_attention.sweep import FA, config, problem

from tlbench import kernel_sweep

ONE_BODY = [config(128, 128, s, threads=256, fast_math=fm) for s in (1, 2) for fm in (False, True)]
ONE_BODY += [config(128, 64, 3, threads=256, fast_math=fm) for fm in (False, True)]
ONE_BODY += [config(128, 128, None, loop_form="manual", threads=256)]
HAND = [config(128, 176, 2, threads=384, body="hopper_ws", fast_math=True),
        config(128, 192, 2, threads=384, body="hopper_ws", fast_math=True),
        config(128, 192, 2, threads=384, body="hopper_ws_ov", fast_math=True)]
HAND += [config(128, bn, 2, threads=384, body=b, fast_math=True, num_cores=132) for bn, b in
         ((192, "hopper_ws"), (176, "hopper_ws"), (192, "hopper_ws_ov"))]  # persistent: 132 blocks walk the query tiles

SWEEP = kernel_sweep(
    "flash_attention", **FA,
    sweep_name="fa_tax",
    description="the one FA body (fast math on and off) beside the hand kernel and the vendor",
    sizes=[problem(batch=2, heads=16, seq=8192, dim=128, causal=c) for c in (False, True)],
    quick=(),
    smoke=[problem(batch=1, heads=2, seq=1024, dim=128)],
    configs={"cuda": ONE_BODY + HAND, "ascend": [config(128, 128, 1, threads=256)]},
    kinds=("device",),
)


def test_fa_tax(tlbench):
    tlbench.run()
