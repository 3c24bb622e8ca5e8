"""Two bodies, ONE flat ``configs=`` list holding each body's own knobs, and a ``validate``
that returns a reason for the other body's dicts (the shape of a user's
elementwise suite the preflight once refused)."""

import torch

from tlbench import kernel_sweep
from shape_bodies import vec_sum_1d, vec_sum_2d


def operands(device, M, N, dialect):
    shape = (M, N) if dialect == "cuda" else (M * N,)
    return [torch.randn(shape, device=device), torch.randn(shape, device=device)]


def other_body(dialect, **knobs):
    if dialect == "cuda" and "mode" in knobs:
        return "an Ascend body's config"
    if dialect == "ascend" and "block_M" in knobs:
        return "a CUDA body's config"
    return None


SWEEP = kernel_sweep(
    "shape_flat_sum", {"cuda": vec_sum_2d, "ascend": vec_sum_1d},
    sizes={"M": 1024, "N": 1024},
    smoke={"M": 256, "N": 256},
    configs=[{"block_M": 32, "block_N": 64, "threads": 128}, {"block_M": 64, "block_N": 64, "threads": 256},
             {"mode": "narrow"}, {"mode": "wide"}],
    validate=other_body,
    inputs=operands,
    reference=lambda x, y: x + y,
    vendor=torch.add,
    bytes_moved=lambda M, N: 12 * M * N,
)


def test_shape_flat_sum(tlbench):
    tlbench.run()
