"""The per-token fp8 cast (tilelang's examples/cast/example_per_token_cast_to_fp8.py) at
8192x8192 with the default check: no ``check=``, so tlbench picks each output's rule."""

import torch

from tlbench import kernel_sweep
from fp8_examples import cast

SWEEP = kernel_sweep(
    "cast_default_check", {"cuda": cast.per_token_cast_to_fp8},
    sizes={"M": 8192, "N": 8192}, smoke={"M": 512, "N": 1024}, quick=(),
    axes={"blk_m": [8]},
    inputs=lambda device, M, N: [torch.randn(M, N, device=device)],
    reference=cast.ref_program,
    bytes_moved=lambda M, N: M * N * (4 + 1) + M * (N // 128) * 4,
)


def test_cast_default_check(tlbench):
    tlbench.run()
