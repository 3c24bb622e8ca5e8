"""NVIDIA's on-chip memory and pre-compile rules, for any kernel family.  No tilelang here.

Contract: ``scopes(arch, capacity)``: one ``shared.dyn`` scope, the opt-in dynamic shared memory
per block (over it only the launch fails, so it is checked here); registers are not budgeted.
``rejection(case, arch)`` is the whole pre-compile verdict (harness/core/space.reject).
"""

from __future__ import annotations

from typing import Any, Sequence

from tlbench.harness.core import space
from tlbench.harness.core.kernel_traits import kernel_traits
from tlbench.harness.core.budget import KiB, NEEDED, Scope

# Maximum dynamic shared memory per block (opt-in), by CUDA arch.
SMEM_PER_BLOCK = {
    "sm_80": 163 * KiB, "sm_86": 99 * KiB, "sm_89": 99 * KiB, "sm_90": 227 * KiB, "sm_90a": 227 * KiB,
    "sm_100": 227 * KiB, "sm_100a": 227 * KiB, "sm_120": 99 * KiB,
}
DEFAULT_ARCH = "sm_90a"
DIALECT = "cuda"


def scopes(arch: str = DEFAULT_ARCH, capacity: int | None = None) -> tuple[Scope, ...]:
    """``capacity`` overrides the shared-memory limit, e.g. a conservative 228 KiB."""
    if arch not in SMEM_PER_BLOCK:
        raise ValueError(f"unknown CUDA arch {arch!r}; known: {', '.join(sorted(SMEM_PER_BLOCK))}")
    limit = capacity if capacity is not None else SMEM_PER_BLOCK[arch]
    return (Scope("shared.dyn", limit, enforced_on=NEEDED),)


def warp_partition(threads: int | None, tiles: Sequence[tuple[int, int]], arch: str = DEFAULT_ARCH) -> str | None:
    """Why tilelang's T.gemm cannot partition each (M, N) tile over ``threads`` (a warp owns 16k
    rows x 8k columns; Hopper groups warps along M by 4), or None; ``threads`` None: unknown."""
    if not tiles or threads is None:
        return None
    if threads % 32:
        return f"threads={threads} is not a whole number of warps"
    warps = threads // 32
    group = 4 if arch.startswith("sm_90") else 1
    for tile_m, tile_n in tiles:
        if not any(
            warps % m_warps == 0 and tile_m % (16 * m_warps) == 0 and tile_n % (8 * (warps // m_warps)) == 0
            for m_warps in range(group, warps + 1, group)
        ):
            return f"no valid warp partition of {tile_m}x{tile_n} over {warps} warps"
    return None


def rejection(case: Any, arch: str = DEFAULT_ARCH, capacity: int | None = None) -> space.Rejection | None:
    rules = [("warp-partition", lambda c: warp_partition(kernel_traits(c, DIALECT).threads, _mma_tiles(c), arch))]
    return space.reject(case, scopes(arch, capacity), DIALECT, rules)


def _mma_tiles(case: Any) -> Sequence[tuple[int, int]]:
    ask = getattr(case.family, "mma_tiles", None)
    return ask(case.problem, case.config) if callable(ask) else ()
