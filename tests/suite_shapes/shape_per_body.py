"""Two bodies, per-body ``configs={"cuda": [...], "ascend": [...]}``."""

import torch

from tlbench import kernel_sweep
from shape_bodies import vec_sum_1d, vec_sum_2d

SWEEP = kernel_sweep(
    "shape_per_body", {"cuda": vec_sum_2d, "ascend": vec_sum_1d},
    sizes={"M": 512, "N": 512},
    configs={"cuda": [{"block_M": 32, "block_N": 32, "threads": 128}], "ascend": [{"mode": "wide"}]},
    inputs=lambda device, M, N, dialect: [torch.randn((M, N) if dialect == "cuda" else (M * N,), device=device)
                                          for _ in range(2)],
    reference=torch.add,
)


def test_shape_per_body(tlbench):
    tlbench.run()
