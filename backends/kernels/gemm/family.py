"""The GEMM kernel family (``C = A @ B^T``, optional fused ReLU): the first ``KernelFamily``.

Contract (harness/core/family.py): ``GEMM`` declares the problem and config types
(backends/kernels/gemm/problem.py), the validation a body would enforce (every dimension a
multiple of its block, ``group_m`` dividing the tile rows), FLOPs and compulsory bytes, the
on-chip footprint per scope of a backend's memory model, the case-id parser, the config's
place on the pipeline-depth axis, the body per dialect (``cuda``: backends/kernels/gemm/
dialect_cuda.py, ``ascend``: dialect_ascend.py; both through the one body in body.py) and
the torch reference and the vendor call (backends/kernels/gemm/reference.py).  tilelang and torch are imported only by
``build`` / ``make_inputs`` / ``check``, so reading records or sweeping needs neither.

Footprint per dialect (the buffers body.py allocates; capacities are the backend's scopes):
- ``cuda``: ``shared.dyn`` holds the A and B tiles, one copy per pipeline version
  (``use - def + 1``), and a staged output tile (``stage_output``).  With one tile per
  block, tilelang's shared-memory merging reuses the operand buffers for the staged tile,
  so the block needs the larger of the two; in a persistent kernel the next tile's K loop
  follows, both are live and it needs their sum (measured, tests/test_budget.py).  The
  accumulator is a register fragment (not budgeted).
- ``ascend``: ``shared.l1`` holds the A and B tiles, ``shared.l0c`` the accumulator, and a
  fused ReLU epilogue puts each vector core's half of the accumulator tile in
  ``shared.ub`` with SIMT code resident (capacity variant ``simt``).
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, Callable, Mapping, Sequence

from tlbench.backends.kernels.gemm.problem import GemmConfig, GemmProblem
from tlbench.harness.core.budget import Scope, ScopeUse, scope_named
from tlbench.harness.core.cases import DTYPE_BYTES, DTYPE_SHORT, VENDOR_SUFFIX, CheckResult
from tlbench.harness.core.family import CaseIdParts, StagePoint

_DTYPES = "|".join(sorted(map(re.escape, DTYPE_SHORT.values()), key=len, reverse=True))
_CASE_ID = re.compile(
    rf"^(?P<problem>gemm(?:_[a-z0-9]+)?-\d+x\d+x\d+-(?:{_DTYPES})(?:-o(?:{_DTYPES}))?)"
    rf"(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>bm\d+-.+|{VENDOR_SUFFIX})$"
)
VECTOR_CORES = 2  # an Ascend cube core's results are split between two vector cores
_PACKAGE = "tlbench.backends.kernels.gemm"
_TILE_EXTRAS = {"num_cores": "cores={}", "group_m": "group_m={}", "enable_offset": "offset", "stage_output": "staged out"}


class GemmFamily:
    name = "gemm"
    problem_type = GemmProblem
    config_type = GemmConfig

    # -- types ---------------------------------------------------------------------------
    def problem_from_dict(self, data: Mapping[str, Any]) -> GemmProblem:
        return GemmProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> GemmConfig:
        known = {f.name for f in fields(GemmConfig)}
        return GemmConfig(**{k: v for k, v in data.items() if k in known})

    def validate(self, problem: GemmProblem, config: GemmConfig, dialect: str) -> str | None:
        for dim, block in (("M", config.block_M), ("N", config.block_N), ("K", config.block_K)):
            if getattr(problem, dim) % block:
                return f"{dim}={getattr(problem, dim)} is not a multiple of block_{dim}={block}"
        if config.group_m is not None and (problem.M // config.block_M) % config.group_m:
            return f"group_m={config.group_m} does not divide the {problem.M // config.block_M} tile rows"
        return None

    def mma_tiles(self, problem: GemmProblem, config: GemmConfig) -> list[tuple[int, int]]:
        return [(config.block_M, config.block_N)]

    # -- what it costs ---------------------------------------------------------------------
    def flops(self, problem: GemmProblem) -> int:
        return problem.flops

    def bytes_moved(self, problem: GemmProblem) -> int:
        return problem.bytes_moved

    def footprint(self, problem: GemmProblem, config: GemmConfig, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        operand = (config.block_M + config.block_N) * config.block_K * DTYPE_BYTES[problem.dtype]
        if dialect == "cuda":
            staging = config.block_M * config.block_N * DTYPE_BYTES[problem.output_dtype] if config.stage_output else 0
            combine = (lambda a, b: a + b) if config.num_cores is not None else max
            smem = scope_named(scopes, "shared.dyn")
            words = [f"A_shared + B_shared {config.pipeline_depth} x {operand} B"] + ([f"C_shared {staging} B"] if staging else [])
            return (smem.use(combine(operand * config.pipeline_depth, staging), combine(operand, staging), buffers=words),)
        if dialect == "ascend":
            accum = config.block_M * config.block_N * DTYPE_BYTES[problem.accum_dtype]
            uses = [
                scope_named(scopes, "shared.l1").use(operand * config.pipeline_depth, operand,
                                                     buffers=[f"A_l1 + B_l1 {config.pipeline_depth} x {operand} B"]),
                scope_named(scopes, "shared.l0c").use(accum, accum, buffers=[f"C_l0c {accum} B {problem.accum_dtype}"]),
            ]
            if problem.epilogue is not None:
                half = (config.block_M // VECTOR_CORES) * config.block_N * DTYPE_BYTES[problem.accum_dtype]
                uses.append(scope_named(scopes, "shared.ub").use(half, half, variant="simt",
                                                                 buffers=[f"epilogue tile {half} B per vector core"]))
            return tuple(uses)
        return ()

    # -- ids -------------------------------------------------------------------------------
    def parse_case_id(self, case_id: str) -> CaseIdParts:
        match = _CASE_ID.match(case_id)
        if match is None:
            raise ValueError(f"{case_id!r} is not a GEMM case id (<problem>[-<label>]-<config>, e.g. gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2)")
        return CaseIdParts(match["problem"], match["label"], match["config"])

    def stage_point(self, config: GemmConfig) -> StagePoint:
        tile = f"{config.block_M}x{config.block_N}x{config.block_K} t{config.threads}"
        for key, fmt in _TILE_EXTRAS.items():
            value = getattr(config, key)
            if value:
                tile += " " + fmt.format(value)
        return StagePoint(tile, config.loop_id, config.loop_form, config.num_stages)

    def problem_label(self, problem: GemmProblem) -> str:
        """``8192x8192x8192 f16``; ``512x512x1024 bf16 -> f32 + relu`` with an out dtype and epilogue."""
        label = f"{problem.M}x{problem.N}x{problem.K} {DTYPE_SHORT.get(problem.dtype, problem.dtype)}"
        if problem.out_dtype and problem.out_dtype != problem.dtype:
            label += f" -> {DTYPE_SHORT.get(problem.out_dtype, problem.out_dtype)}"
        if problem.epilogue:
            label += f" + {problem.epilogue}"
        return label

    def loop_trips(self, problem: GemmProblem, config: GemmConfig) -> int | None:
        return -(-problem.K // config.block_K)

    # -- the kernel and its reference (tilelang / torch, imported here only) ---------------
    def build(self, problem: GemmProblem, config: GemmConfig, dialect: str) -> Any:
        from tlbench.backends.kernels.gemm.body import build_gemm

        if dialect == "cuda":
            from tlbench.backends.kernels.gemm.dialect_cuda import CUDA_DIALECT as chosen
        elif dialect == "ascend":
            from tlbench.backends.kernels.gemm.dialect_ascend import ASCEND_DIALECT as chosen
        else:
            raise ValueError(f"the GEMM family has no body for dialect {dialect!r}; it has: cuda, ascend")
        return build_gemm(problem, config, chosen)

    def kernel_traits(self, problem: GemmProblem, config: GemmConfig, dialect: str) -> dict[str, Any]:
        """The modules the body's source lives in (harness/core/kernel_traits.py); the pipeline
        facts are the config's own fields."""
        dialect_module = (f"{_PACKAGE}.dialect_{dialect}",) if dialect in ("cuda", "ascend") else ()
        return {"body_modules": (f"{_PACKAGE}.body", *dialect_module, f"{_PACKAGE}.problem", f"{_PACKAGE}.raster")}

    def make_inputs(self, problem: GemmProblem, seed: int, device: Any, dialect: str | None = None) -> dict[str, Any]:
        from tlbench.backends.kernels.gemm.reference import make_gemm_inputs

        return make_gemm_inputs(problem, seed, device)

    def kernel_args(self, inputs: Mapping[str, Any]) -> tuple[Any, ...]:
        return inputs["A"], inputs["B"], inputs["C"]

    def output(self, inputs: Mapping[str, Any]) -> Any:
        return inputs["C"]

    def check(self, inputs: dict[str, Any], problem: GemmProblem, dialect: str | None = None) -> CheckResult:
        from tlbench.backends.kernels.gemm.reference import check_output

        return check_output(inputs, problem)

    def vendor_call(self, case: Any, inputs: dict[str, Any], dialect: str, timed: bool) -> tuple[Callable[[], None], str]:
        """The vendor GEMM on the same inputs, into the same output (reference.py's ``vendor_gemm``)."""
        from tlbench.backends.kernels.gemm.reference import vendor_gemm

        return vendor_gemm(inputs, case.problem)


GEMM = GemmFamily()
GemmProblem.family = GEMM  # the problem names its family (problem.py cannot import this module)
