"""Exploration: FA S=8192 one-body tiles with tilelang's warp specialization off (two blocks per SM
interleave their GEMMs and softmax), and the hand kernel with O rescaled under the QK wgmma.

Run from the repo root with suites/ on the path (results/portability-tax/run.sh explore); the
hand kernel's ``hopper_ws_re`` items exist only with rescale-early.patch applied (run.sh does).
``ws: False`` adds tilelang's ``tl.disable_warp_specialized`` to the build (``-nows`` in the id).
"""

from tlbench.suites.flash_attention.problem import BODIES
from tlbench.suites.flash_attention.sweep import FA, config, problem

from tlbench import kernel_sweep


def no_ws(made):
    return {**made, "ws": False}


ONE_BODY = [config(128, 128, 1, threads=256)]
ONE_BODY += [no_ws(config(64, 128, 1, threads=128)), no_ws(config(64, 64, 2, threads=128)), no_ws(config(64, 64, 3, threads=128))]
HAND = [config(128, 192, 2, threads=384, body="hopper_ws", fast_math=True)]
if "hopper_ws_re" in BODIES:  # rescale-early.patch
    HAND += [config(128, bn, 2, threads=384, body="hopper_ws_re", fast_math=True) for bn in (192, 176)]
    HAND += [config(128, 192, 2, threads=384, body="hopper_ws_re")]


def config_id(**axes):
    return FA["config_id"](**axes) + ("-nows" if axes.get("ws") is False else "")


def pass_configs(dialect, fast_math, ws=True):
    return {**FA["pass_configs"](dialect, fast_math), **({"tl.disable_warp_specialized": True} if ws is False else {})}


SWEEP = kernel_sweep(
    "flash_attention", **{**FA, "config_id": config_id, "pass_configs": pass_configs},
    sweep_name="fa_explore",
    description="one-body FA tiles without warp specialization; the hand kernel rescaling O early",
    sizes=[problem(batch=2, heads=16, seq=8192, dim=128, causal=c) for c in (False, True)],
    quick=(),
    smoke=[problem(batch=1, heads=2, seq=1024, dim=128)],
    configs={"cuda": ONE_BODY + HAND, "ascend": [config(128, 128, 1, threads=256)]},
    kinds=("device",),
)


def test_fa_explore(tlbench):
    tlbench.run()
