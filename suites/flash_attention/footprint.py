"""The on-chip bytes each flash-attention body allocates, per dialect (the suite's ``footprint=``).

Contract: ``footprint_bytes(problem, config, dialect)`` is ``{scope: (bytes at the requested
depth, bytes with one version)}``; {} for an unknown dialect; registers are not budgeted.  No
tilelang, no torch.
"""

from __future__ import annotations

from .validation import ASCEND_VECTOR_UNITS

from .problem import FaConfig, FaProblem
from tlbench.harness.core.cases import DTYPE_BYTES


def footprint_bytes(problem: FaProblem, config: FaConfig, dialect: str) -> dict[str, tuple[int, int]]:
    if dialect == "cuda":
        return _nvidia(problem, config)
    return _ascend(problem, config) if dialect == "ascend" else {}


def _nvidia(problem: FaProblem, config: FaConfig) -> dict[str, tuple[int, int]]:
    elem = DTYPE_BYTES[problem.dtype]
    D, BM, BN = problem.dim, config.block_M, config.block_N
    fixed = BM * D * elem  # Q (the hopper body's O staging reuses freed K/V space: measured; the ws body stages O in Q's tile)
    per_version = 2 * BN * D * elem  # K and V
    return {"shared.dyn": (fixed + per_version * config.pipeline_depth, fixed + per_version)}


def _ascend(problem: FaProblem, config: FaConfig) -> dict[str, tuple[int, int]]:
    elem, out, f32 = DTYPE_BYTES[problem.dtype], DTYPE_BYTES[problem.output_dtype], DTYPE_BYTES[problem.accum_dtype]
    D, BM, BN = problem.dim, config.block_M, config.block_N
    rows = BM // ASCEND_VECTOR_UNITS
    l1_fixed = BM * D * elem + BM * BN * elem  # Q, P
    l1_version = 2 * BN * D * elem  # K, V
    l0c = BM * BN * f32 + BM * D * f32  # S, O_tile
    # per vector sub-core: S, P and the ND->NZ scratch; O_tile, O and the cast output; five row vectors
    ub = rows * BN * (f32 + elem + elem) + rows * D * (2 * f32 + out) + 5 * rows * f32
    return {"shared.l1": (l1_fixed + l1_version * config.pipeline_depth, l1_fixed + l1_version),
            "shared.l0c": (l0c, l0c), "shared.ub": (ub, ub)}
