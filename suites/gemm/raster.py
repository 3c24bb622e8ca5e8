"""The order in which a 1-D grid walks a GEMM's output tiles: row-major, or in panels of rows.

Contract: ``tile_origin(...)`` returns the first output row and column of tile index ``tile``
(a Python int or a TileLang expression); ``group_m`` panels go down each column first, so
blocks in flight share B tiles in L2 (the caller checks ``group_m`` divides the tile rows).
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
