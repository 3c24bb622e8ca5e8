"""An ``@autotune`` over a ``@tilelang.jit`` body, as upstream tunes one: tlbench takes the jit
under it and sweeps the axes itself (its own configs are not run)."""

import torch

from tlbench import kernel_sweep
from shape_bodies import tuned_shift

SWEEP = kernel_sweep(
    "shape_autotune", {"cuda": tuned_shift},
    sizes={"N": 4096},
    axes={"block_N": [256, 512], "threads": [128]},
    inputs=lambda device, N: [torch.randn(N, device=device).half()],
    reference=lambda x: x + 1,
)


def test_shape_autotune(tlbench):
    tlbench.run()
