"""NVIDIA's on-chip memory and pre-compile rules, for any kernel family.  No tilelang here.

Contract: ``scopes(arch, capacity)`` is the memory model the budget checks a case against: one ``shared.dyn`` scope
(the opt-in dynamic shared memory per block of ``arch``, as CUDA gives it: 227 KiB on Hopper; a 256 KiB config
lowers and builds with tilelang 0.1.15 and fails only at launch); register fragments are not budgeted (ptxas spills
instead of failing).  The requested pipeline depth must fit: shared memory over the limit is caught by neither
lowering, nvcc nor ptxas (only the launch fails).  ``warp_partition(threads, tiles, arch)`` is tilelang's T.gemm
warp partition, ``rejection(case, arch)`` the whole pre-compile verdict (harness/core/space.reject).
"""

from __future__ import annotations

from typing import Any, Sequence

from ...harness.core import space
from ...harness.core.kernel_traits import kernel_traits
from ...harness.core.budget import KiB, NEEDED, Scope

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
    """tilelang's T.gemm warp partition of each output tile (M, N) over ``threads``: each warp owns a multiple of 16
    rows and 8 columns; on Hopper (warp-group MMA) the warps along M come in groups of 4.  ``tiles`` come from the
    family (``mma_tiles``), ``threads`` from the case's traits (None: the body decides; nothing is predicted)."""
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
