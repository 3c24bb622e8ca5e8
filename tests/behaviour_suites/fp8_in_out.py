"""Behaviour: fp8 inputs and an fp8 output.

Contract: ``mix`` takes two fp8 operands of the two fp8 kinds (``lhs`` e4m3, ``rhs`` e5m2),
stages ``lhs`` through a shared tile of fp8, and writes their product rounded to an fp8 e4m3
output.  ``inputs`` makes the fp8 tensors (so the record's ``input_dtypes`` are the two fp8
kinds), the output is allocated as fp8 e4m3 and judged by ``steps(1)`` (within one
representable e4m3 value of the fp32 reference), and the shared tile is sized at one byte an
element.  CUDA only: tilelang 0.1.15's Ascend vector core has no fp8 arithmetic to show here.
"""

import tilelang.language as T
import torch

from tlbench import kernel_sweep, steps


def mix(N, tile):
    @T.prim_func
    def main(lhs: T.Tensor((N,), "float8_e4m3"), rhs: T.Tensor((N,), "float8_e5m2"),
             prod: T.Tensor((N,), "float8_e4m3")):
        with T.Kernel(N // tile, threads=128) as blk:
            staged = T.alloc_shared((tile,), "float8_e4m3")
            T.copy(lhs[blk * tile], staged)
            for t in T.Parallel(tile):
                prod[blk * tile + t] = T.Cast("float8_e4m3", T.Cast("float32", staged[t]) * T.Cast("float32", rhs[blk * tile + t]))
    return main


def operands(device, N):
    return [torch.randn(N, device=device).to(torch.float8_e4m3fn), torch.randn(N, device=device).to(torch.float8_e5m2)]


SWEEP = kernel_sweep(
    "behaviour_fp8", {"cuda": mix},
    sizes={"N": 1 << 20}, smoke={"N": 4096}, quick=(),
    axes={"tile": [512]},
    inputs=operands,
    reference=lambda lhs, rhs: lhs.float() * rhs.float(),
    check=steps(1),
)


def test_fp8_in_out(tlbench):
    tlbench.run()
