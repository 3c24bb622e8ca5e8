"""The words of a flash-attention record, and the reader of records older than the suites' front door.

Contract: ``FLASH_ATTENTION`` (the ``flash_attention`` entry of ``tlbench.families``) answers
what every reader asks of a record's family (harness/core/record_reader.py); no body, footprint,
inputs or reference.  It imports no backend.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, Mapping

from tlbench.harness.core.family import CaseIdParts, StagePoint

from .problem import FAMILY, FaConfig, FaProblem

_CASE_ID = re.compile(r"^(?P<problem>fa-b\d+h\d+(?:kv\d+)?-s(?:\d+|q\d+sk\d+)-d\d+-[a-z0-9]+(?:-o[a-z0-9]+)?(?:-causal)?)"
                      r"(?:-(?P<label>[A-Za-z0-9_]+?))?-(?P<config>bm\d+-.+|vendor|sdpa_[a-z]+|npu_fusion_attention)$")


class FlashAttentionRecords:
    name = FAMILY

    def problem_from_dict(self, data: Mapping[str, Any]) -> FaProblem:
        return FaProblem(**data)

    def config_from_dict(self, data: Mapping[str, Any]) -> FaConfig:
        known = {f.name for f in fields(FaConfig)}
        return FaConfig(**{k: v for k, v in data.items() if k in known})

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
        words = [f"{config.block_M}x{config.block_N}", f"t{config.threads}"]
        extras = (config.num_cores is not None and f"cores={config.num_cores}",
                  config.enable_offset and "offset", config.body != "shared" and config.body,
                  config.fast_math and "fm")
        words += [w for w in extras if w]
        return StagePoint(" ".join(words), config.loop_id, config.loop_form, config.num_stages)


FLASH_ATTENTION = FlashAttentionRecords()
FaProblem.family = FLASH_ATTENTION  # the problem names its family (problem.py cannot import this module)
