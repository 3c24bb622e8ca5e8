"""``**kwargs`` callables, constants (a dtype and a scale the body takes), axes and a
``validate`` that keeps some of their cross product."""

import torch

from tlbench import kernel_sweep
from shape_bodies import scaled_sum


def operands(device, **named):
    dtype = getattr(torch, named["dtype"])
    return [torch.randn(named["M"], named["N"], device=device).to(dtype) for _ in range(2)]


def expected(x, y, **named):
    return (x.float() * named["alpha"] + y.float()).to(x.dtype)


def square_enough(**named):
    return None if named["block_M"] * 2 >= named["block_N"] else "block_N more than twice block_M"


SWEEP = kernel_sweep(
    "shape_kwargs", {"cuda": scaled_sum},
    sizes={"M": 256, "N": 256},
    axes={"block_M": [16, 32], "block_N": [64], "threads": [128]},
    constants={"dtype": "float16", "alpha": 2.0},
    validate=square_enough,
    inputs=operands,
    reference=expected,
    flops=lambda **named: 2 * named["M"] * named["N"],
)


def test_shape_kwargs(tlbench):
    tlbench.run()
