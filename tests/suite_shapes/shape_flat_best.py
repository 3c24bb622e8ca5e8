"""Two bodies with an int32 output (a row's largest value and its column: top-1), ONE flat
``configs=`` list of both bodies' knobs and a ``validate`` keeping one body's (the shape of
a user's top-k suite)."""

import torch

from tlbench import kernel_sweep
from shape_bodies import row_best_ascend, row_best_cuda


def scores(device, M, N, dialect):
    values = torch.randperm(M * N, device=device).float()  # distinct: one column is the largest
    return [values.reshape(M, N) if dialect == "cuda" else values]


def best(scores, M, N):
    top, where = scores.reshape(M, N).max(dim=1)
    return top, where.to(torch.int32)


def keep(dialect, rows=None, threads=None, mode=None):
    wanted = {"cuda": rows is not None, "ascend": mode is not None}
    return None if wanted[dialect] else f"a knob of the other body (rows={rows}, mode={mode})"


SWEEP = kernel_sweep(
    "shape_flat_best", {"cuda": row_best_cuda, "ascend": row_best_ascend},
    sizes={"M": 512, "N": 256},
    smoke={"M": 64, "N": 128},
    configs=[{"rows": 32, "threads": 32}, {"rows": 64, "threads": 64}, {"mode": "narrow"}, {"mode": "wide"}],
    validate=keep,
    inputs=scores,
    reference=best,
    vendor=best,
)


def test_shape_flat_best(tlbench):
    tlbench.run()
