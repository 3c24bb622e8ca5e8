"""The flash-attention forward family (``FLASH_ATTENTION``), a ``KernelFamily`` plug-in.

Contract (harness/core/family.py): ``validate(problem, config, dialect)`` says why a config
cannot work for a dialect (a sentence that says what to change) or None;
``footprint(problem, config, dialect, scopes)`` the on-chip bytes per scope the body for
that dialect allocates, against the backend's capacities; ``build`` the body per dialect
(``cuda``: the shared body, or the target-specific Hopper kernels for ``body="hopper"`` and
``body="hopper_ws"`` / ``"hopper_ws_ov"``; ``fast_math`` is not part of the body: the NVIDIA
backend passes it to the compiler as tilelang's ``tl.enable_fast_math``;
``ascend``: the shared body, never ``fast_math``); ``make_inputs`` / ``kernel_args`` / ``output`` / ``check`` the
SDPA reference (fa_reference.py); ``parse_case_id`` / ``stage_point`` its ids and its place
on the pipeline-depth axis.  ``rejection(problem, config, target, arch)`` /
``budget(...)`` answer for a backend by name (tests and tools).  tilelang and torch are
imported only by ``build`` and the reference methods.

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
block_M=64 gives 32 rows), the hopper bodies are NVIDIA's own, and so is ``fast_math`` (only
the NVIDIA backend carries it into its build).  A config the compiler
itself refuses (e.g. a CUDA layout-inference conflict) is not predicted here: it compiles,
fails, and its item carries tilelang's words.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, Mapping, Sequence

from tlbench.harness.core.budget import BudgetVerdict, Scope, ScopeUse, scope_named
from tlbench.harness.core.cases import DTYPE_BYTES, CheckResult
from tlbench.harness.core.family import CaseIdParts, StagePoint
from tlbench.harness.core.space import Rejection

from tlbench.backends.kernels.fa_types import FAMILY, WS_BODIES, FaConfig, FaProblem

VREG_FP32_LANES = 64
ASCEND_VECTOR_UNITS = 2


def _tile_divisibility(problem: FaProblem, config: FaConfig) -> str | None:
    if problem.seq_q % config.block_M:
        return f"seq_q={problem.seq_q} is not a multiple of block_M={config.block_M}"
    if problem.seq_k % config.block_N and config.body not in WS_BODIES:  # the ws body masks a partial last key tile
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


FAST_MATH_DIALECTS = ("cuda",)  # the dialects whose backend carries fast_math into the compile


def _dialect_refusal(problem: FaProblem, config: FaConfig, dialect: str) -> str | None:
    if config.fast_math and dialect not in FAST_MATH_DIALECTS:
        return (f"fast_math=True is an NVIDIA build choice (tilelang's tl.enable_fast_math -> nvcc --use_fast_math); "
                f"the {dialect} backend does not pass it to its compiler, so it would build the fast_math=False kernel "
                f"under another id: use fast_math=False")
    if dialect == "ascend":
        if config.body != "shared":
            return f"body={config.body!r} is NVIDIA's target-specific kernel; Ascend runs body='shared'"
        return _ascend_vreg(problem, config)
    return None


def _validate(problem: FaProblem, config: FaConfig, dialect: str) -> str | None:
    reason = _tile_divisibility(problem, config)
    if reason:
        return reason
    if problem.causal and config.body == "hopper":
        return "the hopper body has no causal mask; causal runs on body='shared'"
    if config.body in WS_BODIES:
        reason = hopper_ws_refusal(problem, config)
        if reason:
            return reason
    return _dialect_refusal(problem, config, dialect)


WS_CONSUMER_THREADS, WS_PRODUCER_THREADS = 256, 128


def hopper_ws_refusal(problem: FaProblem, config: FaConfig) -> str | None:
    """Why the explicitly warp-specialized body (backends/nvidia/fa_hopper_ws.py) cannot take
    (problem, config); None when it can."""
    if problem.causal:
        return f"the {config.body} body has no causal mask; causal runs on body='shared'"
    if config.threads != WS_CONSUMER_THREADS + WS_PRODUCER_THREADS:
        return f"the {config.body} body runs 2 consumer + 1 producer warp groups: threads must be 384, got {config.threads}"
    if config.block_M != 128:
        return f"the {config.body} body splits block_M over two consumer warp groups of 64 rows: block_M must be 128, got {config.block_M}"
    if config.loop_form != "auto" or config.num_cores is not None:
        return f"the {config.body} body writes its own schedule: loop_form='auto' and num_cores=None only"
    if (config.num_stages or 0) < 2:
        return f"the {config.body} body double-buffers K and V at least: num_stages >= 2, got {config.num_stages}"
    if problem.seq_q % config.block_M:
        return f"seq_q={problem.seq_q} is not a multiple of block_M={config.block_M}"
    if problem.seq_k // config.block_N < 2:
        return f"the {config.body} body needs at least two key tiles: seq_k={problem.seq_k}, block_N={config.block_N}"
    return None


def _footprint(problem: FaProblem, config: FaConfig, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
    if dialect == "cuda":
        return _nvidia(problem, config, scopes)
    if dialect == "ascend":
        return _ascend(problem, config, scopes)
    return ()


def _nvidia(problem: FaProblem, config: FaConfig, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
    elem = DTYPE_BYTES[problem.dtype]
    D, BM, BN = problem.dim, config.block_M, config.block_N
    fixed = BM * D * elem  # Q (the hopper body's O staging reuses freed K/V space: measured; the ws body stages O in Q's tile)
    per_version = 2 * BN * D * elem  # K and V
    return (scope_named(scopes, "shared.dyn").use(fixed + per_version * config.pipeline_depth, fixed + per_version),)


def _ascend(problem: FaProblem, config: FaConfig, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
    elem, out, f32 = DTYPE_BYTES[problem.dtype], DTYPE_BYTES[problem.output_dtype], DTYPE_BYTES[problem.accum_dtype]
    D, BM, BN = problem.dim, config.block_M, config.block_N
    rows = BM // ASCEND_VECTOR_UNITS
    l1_fixed = BM * D * elem + BM * BN * elem  # Q, P
    l1_version = 2 * BN * D * elem  # K, V
    l0c = BM * BN * f32 + BM * D * f32
    ub = rows * BN * (f32 + elem + elem) + rows * D * (2 * f32 + out) + 5 * rows * f32
    return (
        scope_named(scopes, "shared.l1").use(l1_fixed + l1_version * config.pipeline_depth, l1_fixed + l1_version),
        scope_named(scopes, "shared.l0c").use(l0c, l0c),
        scope_named(scopes, "shared.ub").use(ub, ub),
    )


_CASE_ID = re.compile(r"^(?P<problem>fa-b\d+h\d+(?:kv\d+)?-s(?:\d+|q\d+sk\d+)-d\d+-[a-z0-9]+(?:-o[a-z0-9]+)?(?:-causal)?)"
                      r"(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>bm\d+-.+|vendor|sdpa_[a-z]+|npu_fusion_attention)$")


class FlashAttentionFamily:
    name = FAMILY
    problem_type = FaProblem
    config_type = FaConfig

    def problem_from_dict(self, data: Mapping[str, Any]) -> FaProblem:
        return FaProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> FaConfig:
        known = {f.name for f in fields(FaConfig)}
        return FaConfig(**{k: v for k, v in data.items() if k in known})

    def validate(self, problem: FaProblem, config: FaConfig, dialect: str) -> str | None:
        return _validate(problem, config, dialect)

    def mma_tiles(self, problem: FaProblem, config: FaConfig) -> list[tuple[int, int]]:
        return []  # as before the family plug-in: the bodies' partitions are left to tilelang

    def flops(self, problem: FaProblem) -> int:
        return problem.flops

    def bytes_moved(self, problem: FaProblem) -> int:
        return problem.bytes_moved

    def footprint(self, problem: FaProblem, config: FaConfig, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        return _footprint(problem, config, dialect, scopes)

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        match = _CASE_ID.match(case_id)
        if match is None:
            raise ValueError(f"{case_id!r} is not a flash-attention case id (e.g. fa-b2h16-s1024-d128-bf16-bm128-bn128-t128-auto-s2)")
        return CaseIdParts(match["problem"], match["label"], match["config"])

    def problem_label(self, problem: FaProblem) -> str:
        """``B*H=32 (2x16) S=8192 D=128 bf16`` (+ ``kv 8``, ``causal``): a stage report's header."""
        heads = f"{problem.batch}x{problem.heads}" + (f" kv{problem.num_kv_heads}" if problem.group_size > 1 else "")
        seq = f"S={problem.seq_q}" if problem.seq_q == problem.seq_k else f"Sq={problem.seq_q} Sk={problem.seq_k}"
        causal = " causal" if problem.causal else ""
        return f"attention B*H={problem.batch * problem.heads} ({heads}) {seq} D={problem.dim} {problem.dtype}{causal}"

    def loop_trips(self, problem: FaProblem, config: FaConfig) -> int | None:
        """KV-loop iterations of one block: Sk / block_N; None when causal (it varies by query tile)."""
        return None if problem.causal else -(-problem.seq_k // config.block_N)

    def stage_point(self, config: FaConfig) -> StagePoint:
        tile = f"{config.block_M}x{config.block_N} t{config.threads}"
        if config.num_cores is not None:
            tile += f" cores={config.num_cores}"
        if config.enable_offset:
            tile += " offset"
        if config.body != "shared":
            tile += f" {config.body}"
        if config.fast_math:
            tile += " fm"
        return StagePoint(tile, config.loop_id, config.loop_form, config.num_stages)

    def build(self, problem: FaProblem, config: FaConfig, dialect: str) -> Any:
        reason = _dialect_refusal(problem, config, dialect) if dialect == "ascend" and (config.body != "shared" or config.fast_math) else None
        if reason:
            raise ValueError(reason)
        if dialect == "cuda":
            if config.body == "hopper":
                from tlbench.backends.nvidia.fa_hopper import build_hopper_fa

                return build_hopper_fa(problem, config)
            if config.body in WS_BODIES:
                from tlbench.backends.nvidia.fa_hopper_ws import build_hopper_ws_fa

                return build_hopper_ws_fa(problem, config, overlap=True, pingpong=config.body == "hopper_ws")
            from tlbench.backends.kernels import flash_attention
            from tlbench.backends.nvidia.fa_dialect import CUDA_FA_DIALECT

            return flash_attention.build(problem, config, CUDA_FA_DIALECT)
        if dialect == "ascend":
            from tlbench.backends.ascend.fa_dialect import ASCEND_FA_DIALECT
            from tlbench.backends.kernels import flash_attention

            return flash_attention.build(problem, config, ASCEND_FA_DIALECT)
        raise ValueError(f"the flash-attention family has no body for dialect {dialect!r}; it has: cuda, ascend")

    def make_inputs(self, problem: FaProblem, seed: int, device: Any) -> dict[str, Any]:
        from tlbench.backends.kernels.fa_reference import make_fa_inputs

        return make_fa_inputs(problem, seed, device)

    def kernel_args(self, inputs: Mapping[str, Any]) -> tuple[Any, ...]:
        return inputs["Q"], inputs["K"], inputs["V"], inputs["O"]

    def output(self, inputs: Mapping[str, Any]) -> Any:
        return inputs["O"]

    def check(self, inputs: dict[str, Any], problem: FaProblem) -> CheckResult:
        from tlbench.backends.kernels.fa_reference import check_fa_output

        return check_fa_output(inputs, problem)


FLASH_ATTENTION = FlashAttentionFamily()

_DIALECT_OF = {"nvidia": "cuda", "ascend": "ascend"}  # for callers that name a backend (tests, tools)


def _scopes_of(target: str, arch: str | None) -> tuple[Scope, ...]:
    if target == "nvidia":
        from tlbench.backends.nvidia import limits

        return limits.scopes(arch or limits.DEFAULT_ARCH)
    if target == "ascend":
        from tlbench.backends.ascend import limits

        return limits.scopes()
    return ()


def rejection(problem: FaProblem, config: FaConfig, target: str, arch: str | None = None) -> Rejection | None:
    reason = _validate(problem, config, _DIALECT_OF.get(target, target))
    if reason:
        return Rejection(config, "divisibility", reason)
    verdict = budget(problem, config, target, arch)
    if not verdict.fits:
        return Rejection(config, "budget", verdict.reason)
    return None


def budget(problem: FaProblem, config: FaConfig, target: str, arch: str | None = None) -> BudgetVerdict:
    return BudgetVerdict(_footprint(problem, config, _DIALECT_OF.get(target, target), _scopes_of(target, arch)))
