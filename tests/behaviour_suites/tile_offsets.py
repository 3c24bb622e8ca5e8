"""Behaviour: inputs laid out by the tile.

Contract: ``inputs`` takes the axis ``block_M``: besides the matrix it builds one offset row
per row tile (``offsets`` is ``(M // block_M, N)``), so tlbench makes the inputs again for
each tile, and ``reference`` is told the tile by name as well.  Two tiles, so each config's
offsets have a shape of their own; every row of tile ``t`` gets ``offsets[t]`` added.
CUDA and Ascend bodies.
"""

import tilelang.ascend.language as TA
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def shift_cuda(M, N, block_M):
    @T.prim_func
    def main(mat: T.Tensor((M, N), "float32"), offsets: T.Tensor((M // block_M, N), "float32"),
             shifted: T.Tensor((M, N), "float32")):
        with T.Kernel(M // block_M, threads=128) as t:
            for r, c in T.Parallel(block_M, N):
                shifted[t * block_M + r, c] = mat[t * block_M + r, c] + offsets[t, c]
    return main


def shift_ascend(M, N, block_M):
    @TA.prim_func
    def main(mat: TA.Tensor((M, N), "float32"), offsets: TA.Tensor((M // block_M, N), "float32"),
             shifted: TA.Tensor((M, N), "float32")):
        with TA.Kernel(M // block_M) as t:
            rows = TA.alloc_shared((block_M, N), "float32")
            row_offset = TA.alloc_shared((N,), "float32")
            TA.copy(mat[t * block_M : (t + 1) * block_M, :], rows)
            TA.copy(offsets[t, :], row_offset)
            with TA.SimtVF(threads=128):
                for r, c in TA.Parallel(block_M, N):
                    rows[r, c] = rows[r, c] + row_offset[c]
            TA.copy(rows, shifted[t * block_M : (t + 1) * block_M, :])
    return main


def per_tile(device, M, N, block_M):
    return [torch.randn(M, N, device=device), torch.randn(M // block_M, N, device=device)]


def expected(mat, offsets, block_M):
    return mat + offsets.repeat_interleave(block_M, dim=0)


SWEEP = kernel_sweep(
    "behaviour_tile_inputs", {"cuda": shift_cuda, "ascend": shift_ascend},
    sizes={"M": 8192, "N": 1024}, smoke={"M": 256, "N": 128}, quick=(),
    axes={"block_M": [16, 32]},
    inputs=per_tile,
    reference=expected,
)


def test_tile_offsets(tlbench):
    tlbench.run()
