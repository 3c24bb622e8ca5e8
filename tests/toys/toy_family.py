"""VADD: a toy kernel family (``c = a + b`` over ``n`` floats) that exists only to prove the
family seam from tests/ alone; it is a real plug-in of harness/core/family.py, not a fake of
the harness: the plugin sweeps it, the runner checks and times it, records carry it.

Its one dialect is ``toy`` (the toy backend's): the "body" is a Python function that adds
``block`` elements at a time; the footprint is three ``block`` buffers per pipeline stage in
the toy backend's ``toy.sram``; the reference is exact.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, fields
from typing import Any, Mapping, Sequence

from tlbench.harness.core.budget import Scope, ScopeUse, scope_named
from tlbench.harness.core.cases import DTYPE_BYTES, DTYPE_SHORT, CheckResult
from tlbench.harness.core.family import CaseIdParts, StagePoint


@dataclass(frozen=True)
class VaddProblem:
    n: int
    dtype: str = "float32"

    @property
    def family(self) -> "VaddFamily":
        return VADD

    @property
    def problem_id(self) -> str:
        return f"vadd-{self.n}-{DTYPE_SHORT[self.dtype]}"


@dataclass(frozen=True)
class VaddConfig:
    block: int
    threads: int = 64
    num_stages: int = 1
    loop_form: str = "auto"

    @property
    def config_id(self) -> str:
        return f"b{self.block}-t{self.threads}-auto-s{self.num_stages}"


_CASE_ID = re.compile(r"^(?P<problem>vadd-\d+-[a-z0-9]+)(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>b\d+-.+|vendor)$")


class VaddFamily:
    name = "vadd"

    def problem_from_dict(self, data: Mapping[str, Any]) -> VaddProblem:
        return VaddProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> VaddConfig:
        return VaddConfig(**{k: v for k, v in data.items() if k in {f.name for f in fields(VaddConfig)}})

    def validate(self, problem: VaddProblem, config: VaddConfig, dialect: str) -> str | None:
        if problem.n % config.block:
            return f"n={problem.n} is not a multiple of block={config.block}"
        return None

    def mma_tiles(self, problem: VaddProblem, config: VaddConfig) -> list[tuple[int, int]]:
        return []

    def flops(self, problem: VaddProblem) -> int:
        return problem.n

    def bytes_moved(self, problem: VaddProblem) -> int:
        return 3 * problem.n * DTYPE_BYTES[problem.dtype]

    def footprint(self, problem: VaddProblem, config: VaddConfig, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        if dialect != "toy":
            return ()
        per_stage = 3 * config.block * DTYPE_BYTES[problem.dtype]
        return (scope_named(scopes, "toy.sram").use(per_stage * config.num_stages, per_stage),)

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        match = _CASE_ID.match(case_id)
        if match is None:
            raise ValueError(f"{case_id!r} is not a vadd case id")
        return CaseIdParts(match["problem"], match["label"], match["config"])

    def stage_point(self, config: VaddConfig) -> StagePoint:
        return StagePoint(f"b{config.block} t{config.threads}", f"auto-s{config.num_stages}", "auto", config.num_stages)

    def problem_label(self, problem: VaddProblem) -> str:
        return f"n={problem.n} {DTYPE_SHORT[problem.dtype]}"

    def loop_trips(self, problem: VaddProblem, config: VaddConfig) -> int | None:
        return problem.n // config.block

    def build(self, problem: VaddProblem, config: VaddConfig, dialect: str) -> Any:
        if dialect != "toy":
            raise ValueError(f"vadd has no body for dialect {dialect!r}; it has: toy")
        block = config.block

        def kernel(a, b, c):
            for start in range(0, problem.n, block):
                c[start:start + block] = [x + y for x, y in zip(a[start:start + block], b[start:start + block])]

        return kernel

    def make_inputs(self, problem: VaddProblem, seed: int, device: Any) -> dict[str, Any]:
        rng = random.Random(seed)
        a = [rng.uniform(1.0, 2.0) for _ in range(problem.n)]
        b = [rng.uniform(1.0, 2.0) for _ in range(problem.n)]
        return {"a": a, "b": b, "c": [0.0] * problem.n}

    def kernel_args(self, inputs: Mapping[str, Any]) -> tuple[Any, ...]:
        return inputs["a"], inputs["b"], inputs["c"]

    def output(self, inputs: Mapping[str, Any]) -> Any:
        return inputs["c"]

    def check(self, inputs: dict[str, Any], problem: VaddProblem) -> CheckResult:
        bad = sum(1 for x, y, z in zip(inputs["a"], inputs["b"], inputs["c"]) if not math.isclose(x + y, z))
        return CheckResult(ok=bad == 0, max_abs_err=0.0 if not bad else float("nan"), max_rel_err=0.0, mismatched=bad,
                           total=problem.n, rtol=0.0, atol=0.0, detail=f"{bad} of {problem.n} differ" if bad else "")


VADD = VaddFamily()
