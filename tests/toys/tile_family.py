"""TILE: a test-only tiled kernel family with no body - the case material of the harness's own tests.

Tests of the harness's logic that compile and run nothing real (the fake backend of
tests/fake_backend.py: runner, device workers, journaling, sharding, progress ...) need cases
shaped like a tiled matrix kernel: sizes ``M x N x K``, a ``block_M x block_N x block_K`` tile,
``threads``, the pipelined loop's form and depth.  This family is that shape and nothing
more.  It is a real plug-in of harness/core/family.py, not a fake of the harness, but it has
no body, no inputs and no reference: ``build``, ``make_inputs`` and ``check`` raise (the fake
backend answers those itself).  Real kernels are the suites' (suites/gemm/body.py ...).

- ids: ``tile-1024x1024x1024-f16`` and ``bm128-bn128-bk32-t128-auto-s2`` (``-manual``,
  ``-serial``: harness/core/loop_form.py), so a case id reads
  ``tile-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2``;
- ``validate``: every size a multiple of its block (kind ``divisibility``);
- ``footprint``: for the ``cuda`` dialect (the fake backend's), the A and B tiles in
  ``shared.dyn``, one copy per pipeline version - so a test can pick a config over the fake's
  227 KiB;
- ``flops``: ``2 M N K`` (a problem's cost where items are balanced: harness/measure/device_pieces.py).
Its records describe themselves (``described``: harness/core/described.py), so every reader
(``tlbench compare``, ``report``, the store) reads them with nothing registered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Mapping, Sequence

from tlbench.harness.core import loop_form
from tlbench.harness.core.budget import Scope, ScopeUse, scope_named
from tlbench.harness.core.cases import DTYPE_BYTES, DTYPE_SHORT, CheckResult
from tlbench.harness.core.family import CaseIdParts, StagePoint

NAME = "tile"


@dataclass(frozen=True)
class TileProblem:
    M: int
    N: int
    K: int
    dtype: str = "float16"

    @property
    def family(self) -> "TileFamily":
        return TILE

    @property
    def problem_id(self) -> str:
        return f"{NAME}-{self.M}x{self.N}x{self.K}-{DTYPE_SHORT[self.dtype]}"


@dataclass(frozen=True)
class TileConfig(loop_form.LoopFormConfig):
    block_M: int
    block_N: int
    block_K: int
    threads: int = 128
    loop_form: str = "auto"
    num_stages: int | None = 2

    @property
    def config_id(self) -> str:
        return f"bm{self.block_M}-bn{self.block_N}-bk{self.block_K}-t{self.threads}-{self.loop_id}"

    @property
    def tile(self) -> str:
        return f"{self.block_M}x{self.block_N}x{self.block_K} t{self.threads}"


_CASE_ID = re.compile(rf"^(?P<problem>{NAME}-\d+x\d+x\d+-[a-z0-9]+)(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>bm\d+-.+|vendor)$")


class TileFamily:
    name = NAME
    described = True  # records carry their own words: readers need no entry point

    def problem_from_dict(self, data: Mapping[str, Any]) -> TileProblem:
        return TileProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> TileConfig:
        known = {f.name for f in fields(TileConfig)}
        return TileConfig(**{k: v for k, v in data.items() if k in known})

    def record_words(self, problem: TileProblem, config: TileConfig | None = None) -> dict[str, Any]:
        words: dict[str, Any] = {"problem_id": problem.problem_id, "problem_label": self.problem_label(problem)}
        if config is not None:
            words |= {"config_id": config.config_id, "loop_trips": self.loop_trips(problem, config),
                      "stage": {"tile": config.tile, "loop_id": config.loop_id, "loop_form": config.loop_form,
                                "num_stages": config.num_stages}}
        return words

    def validate(self, problem: TileProblem, config: TileConfig, dialect: str) -> str | None:
        for dim, block in (("M", config.block_M), ("N", config.block_N), ("K", config.block_K)):
            if getattr(problem, dim) % block:
                return f"{dim}={getattr(problem, dim)} is not a multiple of block_{dim}={block}"
        return None

    def mma_tiles(self, problem: TileProblem, config: TileConfig) -> list[tuple[int, int]]:
        return [(config.block_M, config.block_N)]

    def flops(self, problem: TileProblem) -> int:
        return 2 * problem.M * problem.N * problem.K

    def bytes_moved(self, problem: TileProblem) -> int:
        return (problem.M * problem.K + problem.N * problem.K + problem.M * problem.N) * DTYPE_BYTES[problem.dtype]

    def footprint(self, problem: TileProblem, config: TileConfig, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        if dialect != "cuda":
            return ()
        operand = (config.block_M + config.block_N) * config.block_K * DTYPE_BYTES[problem.dtype]
        depth = config.pipeline_depth
        words = [f"A_shared + B_shared {depth} x {operand} B"]
        return (scope_named(scopes, "shared.dyn").use(operand * depth, operand, buffers=words),)

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        match = _CASE_ID.match(case_id)
        if match is None:
            raise ValueError(f"{case_id!r} is not a tile case id")
        return CaseIdParts(match["problem"], match["label"], match["config"])

    def stage_point(self, config: TileConfig) -> StagePoint:
        return StagePoint(config.tile, config.loop_id, config.loop_form, config.num_stages)

    def problem_label(self, problem: TileProblem) -> str:
        return f"{problem.M}x{problem.N}x{problem.K} {DTYPE_SHORT[problem.dtype]}"

    def loop_trips(self, problem: TileProblem, config: TileConfig) -> int | None:
        return -(-problem.K // config.block_K)

    def _no_body(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the tile family is test-only case material: it has no body, inputs or reference")

    build = make_inputs = kernel_args = output = _no_body

    def check(self, inputs: Any, problem: TileProblem) -> CheckResult:
        return self._no_body()


TILE = TileFamily()
