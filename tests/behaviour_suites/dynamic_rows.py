"""Behaviour: a kernel whose sizes are all ``T.dynamic``.

Contract: the factories take no size, only the tile: ``rows`` and ``cols`` are symbolic in
the PrimFunc, so one kernel per config serves every problem.  tlbench sizes the output from
the tensors ``inputs`` made and binds the launch extents per problem (each record's grid is
the problem's, and names the symbolic dimensions with the values bound there), while the two
problems' records of one config share one kernel source.  CUDA and Ascend bodies.
"""

import tilelang.ascend.language as TA
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def halve_cuda(block_rows, block_cols):
    rows, cols = T.dynamic("rows"), T.dynamic("cols")

    @T.prim_func
    def main(grid_in: T.Tensor((rows, cols), "float16"), grid_out: T.Tensor((rows, cols), "float16")):
        with T.Kernel(T.ceildiv(cols, block_cols), T.ceildiv(rows, block_rows), threads=128) as (cx, ry):
            tile = T.alloc_fragment((block_rows, block_cols), "float16")
            T.copy(grid_in[ry * block_rows, cx * block_cols], tile)
            for a, b in T.Parallel(block_rows, block_cols):
                tile[a, b] = tile[a, b] * 0.5
            T.copy(tile, grid_out[ry * block_rows, cx * block_cols])
    return main


def halve_ascend(block_rows, block_cols):
    rows, cols = TA.dynamic("rows"), TA.dynamic("cols")

    @TA.prim_func
    def main(grid_in: TA.Tensor((rows, cols), "float16"), grid_out: TA.Tensor((rows, cols), "float16")):
        with TA.Kernel(TA.ceildiv(rows, block_rows) * TA.ceildiv(cols, block_cols)) as tid:
            ry, cx = tid // TA.ceildiv(cols, block_cols), tid % TA.ceildiv(cols, block_cols)
            tile = TA.alloc_shared((block_rows, block_cols), "float16")
            TA.copy(grid_in[ry * block_rows : (ry + 1) * block_rows, cx * block_cols : (cx + 1) * block_cols], tile)
            with TA.SimtVF(threads=128):
                for a, b in TA.Parallel(block_rows, block_cols):
                    tile[a, b] = tile[a, b] * 0.5
            TA.copy(tile, grid_out[ry * block_rows : (ry + 1) * block_rows, cx * block_cols : (cx + 1) * block_cols])
    return main


SWEEP = kernel_sweep(
    "behaviour_dynamic", {"cuda": halve_cuda, "ascend": halve_ascend},
    sizes=[{"rows": 4096, "cols": 4096}, {"rows": 8192, "cols": 1024}],
    smoke=[{"rows": 256, "cols": 128}, {"rows": 64, "cols": 384}],
    quick=(),
    axes={"block_rows": [32], "block_cols": [128]},
    inputs=lambda device, rows, cols: [torch.randn(rows, cols, device=device).half()],
    reference=lambda grid_in: grid_in * 0.5,
)


def test_dynamic_rows(tlbench):
    tlbench.run()
