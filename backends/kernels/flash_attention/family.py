"""The words of a flash-attention record, and the reader of records older than the suites' front door.

Contract: the flash-attention kernel is declared by the built-in suites through ``kernel_sweep``
(suites/kernel_fa_sweep.py, its code beside it), and their records describe themselves
(harness/core/described.py: ``family_described`` and the words the suite gave them).
``FLASH_ATTENTION`` (the ``flash_attention`` entry of ``tlbench.families``) is what is left of
the family:
- the words every flash-attention record carries, which the suites word theirs with:
  ``problem_label`` (a stage report's header), ``stage_point`` (the config's tile without its
  pipeline depth, and that depth), ``loop_trips`` (the KV loop's steps in one block; None when
  causal), ``parse_case_id`` (``<problem_id>[-<label>]-<config_id>`` split back, vendor items
  named by their library);
- the reader of records written before the suites were declared so (``"family":
  "flash_attention"`` without ``family_described``): ``problem_from_dict`` / ``config_from_dict``
  give ``FaProblem`` / ``FaConfig`` (a config written before a field existed takes its default),
  ``flops`` / ``bytes_moved`` the problem's.
It builds, runs and checks nothing: ``build``, ``make_inputs``, ``kernel_args``, ``output`` and
``check`` raise, naming the suites that do; ``validate`` / ``mma_tiles`` / ``footprint`` say
nothing (None, [], ()): a record holds its own budget and refusal.  It imports no backend.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, Mapping, Sequence

from tlbench.harness.core.budget import Scope, ScopeUse
from tlbench.harness.core.cases import CheckResult
from tlbench.harness.core.family import CaseIdParts, StagePoint

from tlbench.backends.kernels.flash_attention.problem import FAMILY, FaConfig, FaProblem

_CASE_ID = re.compile(r"^(?P<problem>fa-b\d+h\d+(?:kv\d+)?-s(?:\d+|q\d+sk\d+)-d\d+-[a-z0-9]+(?:-o[a-z0-9]+)?(?:-causal)?)"
                      r"(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>bm\d+-.+|vendor|sdpa_[a-z]+|npu_fusion_attention)$")
SUITES = "suites/test_fa_*.py (declared in suites/kernel_fa_sweep.py)"


class FlashAttentionRecords:
    name = FAMILY
    problem_type = FaProblem
    config_type = FaConfig

    def problem_from_dict(self, data: Mapping[str, Any]) -> FaProblem:
        return FaProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> FaConfig:
        known = {f.name for f in fields(FaConfig)}
        return FaConfig(**{k: v for k, v in data.items() if k in known})

    def flops(self, problem: FaProblem) -> int:
        return problem.flops

    def bytes_moved(self, problem: FaProblem) -> int:
        return problem.bytes_moved

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        match = _CASE_ID.match(case_id)
        if match is None:
            raise ValueError(f"{case_id!r} is not a flash-attention case id (e.g. fa-b2h16-s1024-d128-bf16-bm128-bn128-t128-auto-s2)")
        return CaseIdParts(match["problem"], match["label"], match["config"])

    def problem_label(self, problem: FaProblem) -> str:
        """``attention B*H=32 (2x16) S=8192 D=128 bfloat16`` (+ ``kv 8``, ``causal``): a stage report's header."""
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

    # -- what a record holds already ------------------------------------------------------------
    def validate(self, problem: Any, config: Any, dialect: str) -> str | None:
        return None

    def mma_tiles(self, problem: Any, config: Any) -> list[tuple[int, int]]:
        return []

    def footprint(self, problem: Any, config: Any, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        return ()

    # -- what the suites do -----------------------------------------------------------------------
    def _no_body(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"flash attention is built, run and checked by its suites, {SUITES}; "
                           "this family only words and reads its records")

    build = make_inputs = kernel_args = output = _no_body

    def check(self, inputs: Any, problem: Any) -> CheckResult:
        return self._no_body()


FLASH_ATTENTION = FlashAttentionRecords()
FaProblem.family = FLASH_ATTENTION  # the problem names its family (problem.py cannot import this module)
