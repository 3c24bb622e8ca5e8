"""``GEMM``: the reader of GEMM records written before the built-in suites were declared with ``kernel_sweep``.

Contract: what every reader asks of a ``gemm`` record's family (harness/core/record_reader.py),
worded as suites/gemm/sweep.py words it; no body, footprint, inputs or reference.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, Mapping

from .problem import GemmConfig, GemmProblem
from tlbench.harness.core.cases import DTYPE_SHORT, VENDOR_SUFFIX
from tlbench.harness.core.family import CaseIdParts, StagePoint

_DTYPES = "|".join(sorted(map(re.escape, DTYPE_SHORT.values()), key=len, reverse=True))
_CASE_ID = re.compile(
    rf"^(?P<problem>gemm(?:_[a-z0-9]+)?-\d+x\d+x\d+-(?:{_DTYPES})(?:-o(?:{_DTYPES}))?)"
    rf"(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>bm\d+-.+|{VENDOR_SUFFIX})$"
)
_TILE_EXTRAS = {"num_cores": "cores={}", "group_m": "group_m={}", "enable_offset": "offset", "stage_output": "staged out"}


class GemmRecords:
    name = "gemm"

    def problem_from_dict(self, data: Mapping[str, Any]) -> GemmProblem:
        return GemmProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> GemmConfig:
        known = {f.name for f in fields(GemmConfig)}
        return GemmConfig(**{k: v for k, v in data.items() if k in known})

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        match = _CASE_ID.match(case_id)
        if match is None:
            raise ValueError(f"{case_id!r} is not a GEMM case id (<problem>[-<label>]-<config>, e.g. gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2)")
        return CaseIdParts(match["problem"], match["label"], match["config"])

    def stage_point(self, config: GemmConfig) -> StagePoint:
        tile = f"{config.block_M}x{config.block_N}x{config.block_K} t{config.threads}"
        tile += "".join(" " + fmt.format(getattr(config, key))
                        for key, fmt in _TILE_EXTRAS.items() if getattr(config, key))
        return StagePoint(tile, config.loop_id, config.loop_form, config.num_stages)

    def problem_label(self, problem: GemmProblem) -> str:
        """``8192x8192x8192 f16``; ``512x512x1024 bf16 -> f32 + relu`` with an out dtype and epilogue."""
        label = f"{problem.M}x{problem.N}x{problem.K} {DTYPE_SHORT.get(problem.dtype, problem.dtype)}"
        if problem.out_dtype and problem.out_dtype != problem.dtype:
            label += f" -> {DTYPE_SHORT.get(problem.out_dtype, problem.out_dtype)}"
        return label + (f" + {problem.epilogue}" if problem.epilogue else "")

    def loop_trips(self, problem: GemmProblem, config: GemmConfig) -> int | None:
        return -(-problem.K // config.block_K)


GEMM = GemmRecords()
GemmProblem.family = GEMM  # the problem names its family (problem.py cannot import this module)
