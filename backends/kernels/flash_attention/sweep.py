"""A suite declaration for the flash-attention family: ``Sweep`` with the family's kernel name
and its vendor items.

Contract: ``FaSweep`` is a ``harness.core.sweep.Sweep`` (the plugin expands it like any
other; its cases name the family through their problems) and whose vendor items are one
``FaVendorCase`` per library of the backend's dialect (``vendor_libraries``, keyed by dialect:
``cuda`` - torch SDPA's flash, cuDNN and memory-efficient kernels, each its own item, so the
JSON says which ran and which torch refused; ``ascend`` - ``npu_fusion_attention``; a dialect
with none, or none given, has no vendor item).  ``smoke_configs`` keeps the smoke
scope to a few lowerings (FA lowering costs seconds a config on a small CPU box).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from tlbench.harness.core.cases import Case
from tlbench.harness.core.sweep import Sweep

from tlbench.backends.kernels.flash_attention.problem import VENDOR_LIBRARIES, FaConfig, FaVendorCase


@dataclass(frozen=True)
class FaSweep(Sweep):
    vendor_libraries: Mapping[str, Sequence[str]] = field(default_factory=lambda: dict(VENDOR_LIBRARIES))
    smoke_configs: Sequence[FaConfig] | None = None  # the few configs of the smoke scope (None: all)

    def configs_for(self, backend: str, scope: str = "full", dialect: str | None = None) -> list:
        if scope == "smoke" and self.smoke_configs is not None:
            return list(self.smoke_configs)
        return super().configs_for(backend, scope, dialect)

    def cases(self, backend: str, scope: str, device: str | None = None, load_best=None, dialect: str | None = None) -> list[Case]:
        if not self.applies_to(backend):
            return []
        problems = self.problems_for(scope)
        return [Case(problem=p, config=c) for p in problems for c in self.configs_for(backend, scope, dialect)]

    def vendor_cases(self, backend: str, scope: str, dialect: str | None = None) -> list[FaVendorCase]:
        if not (self.vendor and self.applies_to(backend)):
            return []
        libraries = self.vendor_libraries.get(dialect or "", ())
        return [FaVendorCase(problem=p, library=lib) for p in self.problems_for(scope) for lib in libraries]
