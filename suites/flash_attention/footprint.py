"""The on-chip bytes each flash-attention body allocates, per dialect (the suite's ``footprint=``).

Contract: ``footprint_bytes(problem, config, dialect)`` is ``{scope: (bytes at the requested
pipeline depth, bytes with one version)}`` of the buffers ``dialect``'s body allocates; {}
for a dialect whose buffers it does not know.  The capacities are the backend's own: the
generic path checks these bytes against the scopes of the backend that runs the case
(``budget.check``), so nothing here names a backend or its limits.  Plain values: no
tilelang, no torch.

The bytes follow the buffers the bodies allocate (body.py, hopper.py,
hopper_ws.py):
- NVIDIA shared memory: the Q tile, plus K and V tiles once per pipeline version (the
  hopper body's O staging tile is merged into space the loop freed: 163840 B at 128x128,
  num_stages=2, lowered for sm_90a; the ws body stages O in Q's tile).  Register fragments
  are not budgeted: ptxas spills instead of failing.
- Ascend L1: Q, P, and K, V once per version (Z3 may choose fewer versions than asked, so
  one version must fit); L0C: the S and O_tile accumulators; UB, per vector sub-core
  (block_M / 2 rows): S, P, O_tile, O, the cast output, the ND->NZ scratch that carries P
  back to L1, and five row vectors.
"""

from __future__ import annotations

from .validation import ASCEND_VECTOR_UNITS

from .problem import FaConfig, FaProblem
from ...harness.core.cases import DTYPE_BYTES


def footprint_bytes(problem: FaProblem, config: FaConfig, dialect: str) -> dict[str, tuple[int, int]]:
    if dialect == "cuda":
        return _nvidia(problem, config)
    if dialect == "ascend":
        return _ascend(problem, config)
    return {}


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
    l0c = BM * BN * f32 + BM * D * f32
    ub = rows * BN * (f32 + elem + elem) + rows * D * (2 * f32 + out) + 5 * rows * f32
    return {
        "shared.l1": (l1_fixed + l1_version * config.pipeline_depth, l1_fixed + l1_version),
        "shared.l0c": (l0c, l0c),
        "shared.ub": (ub, ub),
    }
