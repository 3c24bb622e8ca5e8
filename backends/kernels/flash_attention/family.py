"""The flash-attention forward family (``FLASH_ATTENTION``), a ``KernelFamily`` plug-in.

Contract (harness/core/family.py): ``validate(problem, config, dialect)`` says why a config
cannot work for a dialect (a sentence that says what to change) or None;
``footprint(problem, config, dialect, scopes)`` the on-chip bytes per scope the body for
that dialect allocates, against the backend's capacities; ``build`` the body per dialect
(``cuda``: the shared body, or the target-specific Hopper kernels for ``body="hopper"`` and
``body="hopper_ws"`` / ``"hopper_ws_ov"``; ``fast_math`` is not part of the body: the NVIDIA
backend passes it to the compiler as tilelang's ``tl.enable_fast_math``;
``ascend``: the shared body, never ``fast_math``); ``make_inputs`` / ``kernel_args`` / ``output`` / ``check`` the
SDPA reference (reference.py); ``parse_case_id`` / ``stage_point`` its ids and its place
on the pipeline-depth axis.  ``rejection(problem, config, dialect, scopes)`` /
``budget(...)`` answer for a dialect and a backend's on-chip scopes (its ``scopes()``), with
the family's own rules alone (tests and tools; a family never imports a backend).  tilelang and torch are
imported only by ``build`` and the reference methods.

Footprints follow the buffers the bodies allocate (backends/kernels/flash_attention/body.py,
backends/kernels/flash_attention/hopper.py):
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
from typing import Any, Callable, Mapping, Sequence

from tlbench.harness.core.budget import BudgetVerdict, Scope, ScopeUse, scope_named
from tlbench.harness.core.cases import DTYPE_BYTES, CheckResult
from tlbench.harness.core.family import CaseIdParts, StagePoint
from tlbench.harness.core.space import Rejection

from tlbench.backends.kernels.flash_attention.problem import FAMILY, WS_BODIES, FaConfig, FaProblem, FaVendorCase
from tlbench.backends.kernels.flash_attention.validation import ASCEND_VECTOR_UNITS, FAST_MATH_DIALECTS, dialect_refusal, validate as _validate

FAST_MATH_PASS_CONFIG = "tl.enable_fast_math"  # tilelang's PassConfigKey.TL_ENABLE_FAST_MATH (nvcc --use_fast_math)
_PACKAGE = "tlbench.backends.kernels.flash_attention"
# the modules whose source is each body (for the kernel hash): the explicitly warp-specialized
# body calls hopper.py's online-softmax step and validation.py's rules, the hopper body body.py's checks
_TARGET_BODIES = {"hopper": ("hopper", "body"), "hopper_ws": ("hopper_ws", "hopper", "validation"),
                  "hopper_ws_ov": ("hopper_ws", "hopper", "validation")}


def body_modules(config: FaConfig, dialect: str) -> tuple[str, ...]:
    names = _TARGET_BODIES.get(config.body) or (("body", f"dialect_{dialect}") if dialect in ("cuda", "ascend") else ("body",))
    return tuple(f"{_PACKAGE}.{name}" for name in (*names, "problem"))


def footprint_bytes(problem: FaProblem, config: FaConfig, dialect: str) -> dict[str, tuple[int, int]]:
    """``{scope: (bytes at the requested pipeline depth, bytes with one version)}`` of the
    buffers ``dialect``'s body allocates (the module's contract); {} for another dialect."""
    if dialect == "cuda":
        return _nvidia(problem, config)
    if dialect == "ascend":
        return _ascend(problem, config)
    return {}


def _footprint(problem: FaProblem, config: FaConfig, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
    return tuple(scope_named(scopes, scope).use(needed, minimum)
                 for scope, (needed, minimum) in footprint_bytes(problem, config, dialect).items())


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
        reason = dialect_refusal(problem, config, dialect) if dialect == "ascend" and (config.body != "shared" or config.fast_math) else None
        if reason:
            raise ValueError(reason)
        if dialect == "cuda":
            if config.body == "hopper":
                from tlbench.backends.kernels.flash_attention.hopper import build_hopper_fa

                return build_hopper_fa(problem, config)
            if config.body in WS_BODIES:
                from tlbench.backends.kernels.flash_attention.hopper_ws import build_hopper_ws_fa

                return build_hopper_ws_fa(problem, config, overlap=True, pingpong=config.body == "hopper_ws")
            from tlbench.backends.kernels.flash_attention.body import build
            from tlbench.backends.kernels.flash_attention.dialect_cuda import CUDA_FA_DIALECT

            return build(problem, config, CUDA_FA_DIALECT)
        if dialect == "ascend":
            from tlbench.backends.kernels.flash_attention.body import build
            from tlbench.backends.kernels.flash_attention.dialect_ascend import ASCEND_FA_DIALECT

            return build(problem, config, ASCEND_FA_DIALECT)
        raise ValueError(f"the flash-attention family has no body for dialect {dialect!r}; it has: cuda, ascend")

    def kernel_traits(self, problem: FaProblem, config: FaConfig, dialect: str) -> dict[str, Any]:
        """The modules each body's source lives in, and ``fast_math`` as tilelang's pass config
        on the dialect whose backend builds with it (harness/core/kernel_traits.py)."""
        fast_math = {FAST_MATH_PASS_CONFIG: True} if config.fast_math and dialect in FAST_MATH_DIALECTS else {}
        return {"body_modules": body_modules(config, dialect), "pass_configs": fast_math}

    def make_inputs(self, problem: FaProblem, seed: int, device: Any, dialect: str | None = None) -> dict[str, Any]:
        from tlbench.backends.kernels.flash_attention.reference import make_fa_inputs

        return make_fa_inputs(problem, seed, device)

    def kernel_args(self, inputs: Mapping[str, Any]) -> tuple[Any, ...]:
        return inputs["Q"], inputs["K"], inputs["V"], inputs["O"]

    def output(self, inputs: Mapping[str, Any]) -> Any:
        return inputs["O"]

    def check(self, inputs: dict[str, Any], problem: FaProblem, dialect: str | None = None) -> CheckResult:
        from tlbench.backends.kernels.flash_attention.reference import check_fa_output

        return check_fa_output(inputs, problem)

    def vendor_call(self, case: FaVendorCase, inputs: dict[str, Any], dialect: str, timed: bool) -> tuple[Callable[[], None], str]:
        """The vendor item ``case.library`` (problem.py's ``VENDOR_LIBRARIES``) and its exact label;
        timed, an SDPA call is the call alone (without the copy into O)."""
        from tlbench.backends.kernels.flash_attention.vendor import vendor_runner

        return vendor_runner(case, inputs, dialect, timed)


FLASH_ATTENTION = FlashAttentionFamily()
FaProblem.family = FLASH_ATTENTION  # the problem names its family (problem.py cannot import this module)

def rejection(problem: FaProblem, config: FaConfig, dialect: str, scopes: Sequence[Scope]) -> Rejection | None:
    """Why ``config`` cannot run for ``dialect`` on a backend with on-chip ``scopes`` (its
    ``scopes()``), the family's rules and its footprint alone; None: nothing predicted."""
    reason = _validate(problem, config, dialect)
    if reason:
        return Rejection(config, "divisibility", reason)
    verdict = budget(problem, config, dialect, scopes)
    if not verdict.fits:
        return Rejection(config, "budget", verdict.reason)
    return None


def budget(problem: FaProblem, config: FaConfig, dialect: str, scopes: Sequence[Scope]) -> BudgetVerdict:
    return BudgetVerdict(_footprint(problem, config, dialect, scopes))
