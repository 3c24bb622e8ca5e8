"""A suite's declaration of what to benchmark, expanded into cases with stable ids.

Contract: a suite module defines ``SWEEP = Sweep(...)``; ``Sweep.cases(backend, scope)`` crosses
the scope's problems with the configs in declaration order (plus a ``best`` case per problem with
``best_configs``); ``vendor_cases`` one vendor item per problem.  Ids never depend on the backend.
Scopes: ``quick`` (``quick_problems`` x ``quick_configs``; ``()`` keeps a suite out), ``smoke``,
``full``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any, Callable, Mapping, Sequence

from .space import REJECTION_KINDS
from .cases import Case, VendorCase

SCOPES = ("quick", "smoke", "full")

# (path, backend, problem, device) -> the recorded best config as a dict, or None
BestLoader = Callable[[str, str, Any, "str | None"], "Mapping[str, Any] | None"]


@dataclass(frozen=True)
class Sweep:
    name: str
    problems: Sequence[Any]
    configs: Sequence[Any]
    smoke_problems: Sequence[Any] = ()
    backend_configs: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    backends: Sequence[str] | None = None  # None: every selected backend
    vendor: bool = False
    description: str = ""
    best_configs: str | None = None
    probe_inert_keys: bool = False
    kinds: Sequence[str] = ("compile", "device")  # measure kinds this suite makes items for
    # Which pre-compile rejections skip an item (without one, the compiler answers in its own words).
    skip_on: Sequence[str] = REJECTION_KINDS
    quick_problems: Sequence[Any] | None = None
    quick_configs: Sequence[Any] | None = None
    quick_backend_configs: Mapping[str, Sequence[Any]] = field(default_factory=dict)

    def problems_for(self, scope: str) -> list[Any]:
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
        if scope == "quick" and self.quick_problems is not None:
            return list(self.quick_problems)
        if scope == "quick":
            scope = "full"
        if scope == "smoke":
            return list(self.smoke_problems or self.problems[:1])
        return list(dict.fromkeys([*self.smoke_problems, *self.problems]))  # in order, each once

    def applies_to(self, backend: str) -> bool:
        return self.backends is None or backend in self.backends

    def configs_for(self, backend: str, scope: str = "full", dialect: str | None = None) -> list[Any]:
        """``dialect``: the body dialect ``backend`` builds (read by sweeps whose configs differ per body)."""
        if scope == "quick" and self.quick_problems is not None:
            base = list(self.quick_configs) if self.quick_configs is not None else self.configs_for(backend)
            return [*base, *(c for c in self.quick_backend_configs.get(backend, ()) if c not in base)]
        return [*self.configs, *self.backend_configs.get(backend, ())]

    def cases(self, backend: str, scope: str, device: str | None = None, load_best: BestLoader | None = None,
              dialect: str | None = None) -> list[Case]:
        """``load_best``: required with ``best_configs``; it prefers a winner recorded on ``device``."""
        if not self.applies_to(backend):
            return []
        problems = self.problems_for(scope)
        cases = [Case(problem=p, config=c) for p, c in product(problems, self.configs_for(backend, scope, dialect))]
        if self.best_configs and not (scope == "quick" and self.quick_problems is not None):
            if load_best is None:
                raise ValueError(f"sweep {self.name!r} names best_configs={self.best_configs!r}: pass load_best to read it")
            for problem in problems:
                best = load_best(self.best_configs, backend, problem, device)
                if best is not None:
                    cases.append(Case(problem=problem, config=problem.family.config_from_dict(best), label="best"))
        return cases

    def vendor_cases(self, backend: str, scope: str, dialect: str | None = None) -> list[VendorCase]:
        """``dialect``: the backend's, for a sweep offering per-dialect vendor libraries."""
        if not (self.vendor and self.applies_to(backend)):
            return []
        return [VendorCase(problem=p) for p in self.problems_for(scope)]
