"""Per-token cast to fp8 e4m3 with one fp32 scale per 128 values of a row: after tilelang examples/cast/example_per_token_cast_to_fp8.py.

Our own code with that file's public functions (``per_token_cast_to_fp8``, ``ref_program``,
``ceil_div``).  A block takes ``blk_m`` rows by one group of 128 columns into registers,
finds each row's largest magnitude (at least 1e-4), sets the scale to that over 448 (e4m3's
largest finite value), writes the values divided by it, clamped to +-448, as e4m3, and the
scale beside them.
"""

import torch
import tilelang
import tilelang.language as T

GROUP = 128  # values that share a scale
E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4


def ceil_div(x: int, y: int) -> int:
    """``x / y`` rounded up."""
    return -(-x // y)


@tilelang.jit
def per_token_cast_to_fp8(X, blk_m):
    """(X_fp8, X_amax): X (M x N fp32) as e4m3 and its M x ceil(N / 128) scales."""
    rows, cols = T.const("M, N")
    group, top_value, floor = GROUP, E4M3_MAX, AMAX_FLOOR
    X: T.Tensor((rows, cols), T.float32)
    X_fp8 = T.empty((rows, cols), T.float8_e4m3fn)
    X_amax = T.empty((rows, T.ceildiv(cols, group)), T.float32)

    with T.Kernel(T.ceildiv(rows, blk_m), T.ceildiv(cols, group), threads=128) as (row_block, group_id):
        first_row, first_col = row_block * blk_m, group_id * group
        values = T.alloc_fragment((blk_m, group), T.float32)
        largest = T.alloc_fragment((blk_m,), T.float32)
        scale = T.alloc_fragment((blk_m,), T.float32)
        scaled = T.alloc_fragment((blk_m, group), T.float32)
        as_fp8 = T.alloc_fragment((blk_m, group), T.float8_e4m3fn)

        T.copy(X[first_row : first_row + blk_m, first_col : first_col + group], values)
        T.reduce_absmax(values, largest, dim=1)
        for r in T.Parallel(blk_m):
            scale[r] = T.max(largest[r], floor) / top_value
        for r, c in T.Parallel(blk_m, group):
            scaled[r, c] = T.clamp(values[r, c] / scale[r], -top_value, top_value)
        T.copy(scaled, as_fp8)
        for r in T.Parallel(blk_m):
            X_amax[first_row + r, group_id] = scale[r]
        T.copy(as_fp8, X_fp8[first_row : first_row + blk_m, first_col : first_col + group])

    return X_fp8, X_amax


def ref_program(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The same cast in torch: (e4m3 values, scales); N need not be a multiple of 128."""
    rows, cols = x.shape
    groups = torch.nn.functional.pad(x, (0, ceil_div(cols, GROUP) * GROUP - cols)).view(rows, -1, GROUP)
    largest = groups.abs().float().amax(dim=2).clamp(min=AMAX_FLOOR)
    values = (groups * (E4M3_MAX / largest.unsqueeze(2))).to(torch.float8_e4m3fn)
    return values.view(rows, -1)[:, :cols].contiguous(), largest / E4M3_MAX
