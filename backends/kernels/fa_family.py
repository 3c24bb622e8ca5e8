"""What the flash-attention family knows before anything compiles: refusals and footprints.

Contract: ``rejection(problem, config, target, arch)`` returns a ``Rejection`` (kind and a
sentence that says what to change) or None; ``budget(problem, config, target, arch)``
returns a ``BudgetVerdict`` per on-chip scope, the bytes named.  ``target`` is the backend
asking (``nvidia`` / ``ascend``).  Nothing here imports tilelang or torch.

Footprints follow the buffers the bodies allocate (backends/kernels/flash_attention.py,
backends/nvidia/fa_hopper.py):
- NVIDIA shared memory: the Q tile, plus K and V tiles once per pipeline version (the
  hopper body's O staging tile is merged into space the loop freed: 163840 B at 128x128,
  num_stages=2, lowered for sm_90a).  Register fragments are not budgeted:
  ptxas spills instead of failing.
- Ascend L1: Q, P, and K, V once per version (Z3 may choose fewer versions than asked, so
  one version must fit); L0C: the S and O_tile accumulators; UB, per vector sub-core
  (block_M / 2 rows): S, P, O_tile, O, the cast output, the ND->NZ scratch that carries P
  back to L1, and five row vectors.
Refusals that no budget explains: on Ascend each sub-core's rows and the key tile must fill
whole 64-lane fp32 vector registers (``T.fill`` inside SimdVF and the SIMD exp need it;
block_M=64 gives 32 rows), and the hopper body is NVIDIA's own.  A config the compiler
itself refuses (e.g. a CUDA layout-inference conflict) is not predicted here: it compiles,
fails, and its item carries tilelang's words.
"""

from __future__ import annotations

from harness.core import budget as core_budget
from harness.core.budget import BudgetVerdict, ScopeUse
from harness.core.cases import DTYPE_BYTES
from harness.core.space import Rejection

from backends.kernels.fa_types import FaConfig, FaProblem

VREG_FP32_LANES = 64
ASCEND_VECTOR_UNITS = 2


def _tile_divisibility(problem: FaProblem, config: FaConfig) -> str | None:
    if problem.seq_q % config.block_M:
        return f"seq_q={problem.seq_q} is not a multiple of block_M={config.block_M}"
    if problem.seq_k % config.block_N:
        return f"seq_k={problem.seq_k} is not a multiple of block_N={config.block_N}"
    tiles = problem.batch * problem.heads * (problem.seq_q // config.block_M)
    if config.num_cores is not None and tiles % config.num_cores:
        return f"num_cores={config.num_cores} does not divide the {tiles} query tiles"
    return None


def _ascend_vreg(problem: FaProblem, config: FaConfig) -> str | None:
    rows = config.block_M // ASCEND_VECTOR_UNITS
    if rows % VREG_FP32_LANES:
        return (
            f"block_M={config.block_M} gives each of the {ASCEND_VECTOR_UNITS} vector sub-cores {rows} rows; "
            f"T.fill inside SimdVF needs extents divisible by the {VREG_FP32_LANES}-lane VReg: use block_M >= 128"
        )
    if config.block_N % VREG_FP32_LANES or problem.dim % VREG_FP32_LANES:
        return f"block_N={config.block_N} and dim={problem.dim} must be multiples of the {VREG_FP32_LANES}-lane VReg (SIMD exp)"
    return None


def rejection(problem: FaProblem, config: FaConfig, target: str, arch: str | None = None) -> Rejection | None:
    reason = _tile_divisibility(problem, config)
    if reason:
        return Rejection(config, "divisibility", reason)
    if problem.causal and config.body == "hopper":
        return Rejection(config, "divisibility", "the hopper body has no causal mask; causal runs on body='shared'")
    if target == "ascend":
        if config.body != "shared":
            return Rejection(config, "divisibility", f"body={config.body!r} is NVIDIA's target-specific kernel; Ascend runs body='shared'")
        reason = _ascend_vreg(problem, config)
        if reason:
            return Rejection(config, "divisibility", reason)
    verdict = budget(problem, config, target, arch)
    if not verdict.fits:
        return Rejection(config, "budget", verdict.reason)
    return None


def budget(problem: FaProblem, config: FaConfig, target: str, arch: str | None = None) -> BudgetVerdict:
    if target == "nvidia":
        return BudgetVerdict(_nvidia(problem, config, arch or "sm_90a"))
    if target == "ascend":
        return BudgetVerdict(_ascend(problem, config))
    return BudgetVerdict(())


def _nvidia(problem: FaProblem, config: FaConfig, arch: str) -> tuple[ScopeUse, ...]:
    elem = DTYPE_BYTES[problem.dtype]
    D, BM, BN = problem.dim, config.block_M, config.block_N
    fixed = BM * D * elem  # Q (the hopper body's O staging reuses freed K/V space: measured)
    per_version = 2 * BN * D * elem  # K and V
    capacity = core_budget.NVIDIA_SMEM_PER_BLOCK.get(arch)
    if capacity is None:
        raise ValueError(f"unknown CUDA arch {arch!r}; known: {', '.join(sorted(core_budget.NVIDIA_SMEM_PER_BLOCK))}")
    return (ScopeUse("shared.dyn", fixed + per_version * config.pipeline_depth, fixed + per_version, capacity, "needed"),)


def _ascend(problem: FaProblem, config: FaConfig) -> tuple[ScopeUse, ...]:
    elem, out, f32 = DTYPE_BYTES[problem.dtype], DTYPE_BYTES[problem.output_dtype], DTYPE_BYTES[problem.accum_dtype]
    D, BM, BN = problem.dim, config.block_M, config.block_N
    rows = BM // ASCEND_VECTOR_UNITS
    cap = core_budget.ASCEND_CAPACITY
    l1_fixed = BM * D * elem + BM * BN * elem  # Q, P
    l1_version = 2 * BN * D * elem  # K, V
    l0c = BM * BN * f32 + BM * D * f32
    ub = rows * BN * (f32 + elem + elem) + rows * D * (2 * f32 + out) + 5 * rows * f32
    return (
        ScopeUse("shared.l1", l1_fixed + l1_version * config.pipeline_depth, l1_fixed + l1_version, cap["shared.l1"], "minimum"),
        ScopeUse("shared.l0c", l0c, l0c, cap["shared.l0c"], "minimum"),
        ScopeUse("shared.ub", ub, ub, cap["shared.ub"], "minimum"),
    )
