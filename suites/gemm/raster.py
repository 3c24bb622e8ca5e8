"""The order in which a 1-D grid walks a GEMM's output tiles: row-major, or in panels of rows.

Contract: ``tile_origin(tiles_N, block_M, block_N, group_m)`` returns ``(tile_row, tile_col)``:
the first output row and column of 1-D tile index ``tile`` (a Python int or a TileLang
expression: both are plain arithmetic, evaluated where the kernel is traced).  With
``group_m`` None the tiles run row-major; with ``group_m`` they run in panels of ``group_m``
tile rows, down each panel's column before the next column, so the blocks in flight share B
tiles in L2.  ``group_m`` must divide the number of tile rows (the caller checks).  Plain
Python: the built-in GEMM body (suites/gemm/body.py) and the hand warp-specialized GEMM
(suites/gemm/ws.py) both take their tile order from here.
"""


def tile_origin(tiles_N, block_M, block_N, group_m):
    def tile_row(tile):
        if group_m is None:
            return tile // tiles_N * block_M
        in_group = group_m * tiles_N
        return (tile // in_group * group_m + tile % in_group % group_m) * block_M

    def tile_col(tile):
        if group_m is None:
            return tile % tiles_N * block_N
        return tile % (group_m * tiles_N) // group_m * block_N

    return tile_row, tile_col
