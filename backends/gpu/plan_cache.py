"""What tilelang decided for a kernel (its ``PlanFacts``), kept on disk beside tilelang's cache: a
compile that tilelang's cache answers lowers nothing, so reading its plan would cost a lowering.

Contract: ``PlanCache(directory)`` (None: nothing stored); ``key(...)`` also covers the plan
reader's source; ``get(key)`` returns the stored ``PlanFacts`` or None; ``put`` writes atomically.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from tlbench.harness.core.kernel_traits import modules_hash
from .keyed_files import KeyedFiles

FORMAT = 2


class PlanCache(KeyedFiles):
    @staticmethod
    def key(lowering_key: str, body_key: str | None, case_id: str) -> str:
        """Also keyed by the source of the plan reader (backends/gpu/plan.py): a change in what a plan records never
        reads an older file."""
        text = json.dumps([FORMAT, modules_hash(["tlbench.backends.gpu.plan"]), lowering_key, body_key, case_id])
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, key: str) -> "PlanFacts | None":
        from .plan import PlanFacts  # imports tvm: only where a plan is read

        text = self.read(key)
        try:
            return PlanFacts(**json.loads(text)) if text is not None else None
        except (ValueError, TypeError):
            return None

    def put(self, key: str, facts: "PlanFacts") -> None:
        self.write(key, json.dumps(asdict(facts)))  # refused by the disk: a lowering next time
