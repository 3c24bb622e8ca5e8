"""A suite's declaration of what to benchmark, expanded into cases with stable ids.

Contract: a suite module defines ``SWEEP = Sweep(...)``.  ``Sweep.cases(backend, scope)`` returns the ``Case`` list
for one backend: the problems of that scope crossed with the configs (listed, plus any backend-only configs), in
declaration order.  ``cases`` / ``configs_for`` take the ``dialect`` the backend builds, for a sweep whose configs
differ per body (the generic kernel path's per-body ``axes``).  Problems and configs are a kernel family's types
(backends/kernels/). ``vendor=True`` adds one vendor-library item per problem; ``best_configs`` (a
results/best_configs.json written by autotune) adds the recorded winner per problem as a case labelled ``best``,
read by the ``load_best`` the caller passes in (the results layer owns that file; this module does not import it).
``probe_inert_keys`` asks the plugin to lower pairs of configs at collection to find swept keys that do not change
the kernel.  Ids are ``<problem>-<config>`` (see harness/core/cases.py) and never depend on the backend, so the same
kernel can be joined across backends.

Scopes: ``quick`` (the default main job: a small but complete story in minutes) takes what a suite declares for it -
``quick_problems`` crossed with ``quick_configs`` (None: all of that backend's configs) plus
``quick_backend_configs``; ``quick_problems=()`` keeps a suite out of the quick scope, and a suite that declares
nothing (None) runs in it as in ``full``. ``smoke``: the small problems; ``full``: every problem.
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
    # Which pre-compile rejections skip an item.  The on-chip budget always does (an over-
    # budget kernel only fails at launch); drop "divisibility"/"warp-partition" to let the
    # compiler answer with its own words instead of tlbench's prediction of them.
    skip_on: Sequence[str] = REJECTION_KINDS
    # The quick scope (see the module docstring): nothing unless declared.
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
        seen: list[Any] = []
        for p in [*self.smoke_problems, *self.problems]:
            if p not in seen:
                seen.append(p)
        return seen

    def applies_to(self, backend: str) -> bool:
        return self.backends is None or backend in self.backends

    def configs_for(self, backend: str, scope: str = "full", dialect: str | None = None) -> list[Any]:
        """``dialect``: the body dialect ``backend`` builds (a sweep whose configs differ per body reads it; this
        one does not)."""
        if scope == "quick" and self.quick_problems is not None:
            base = list(self.quick_configs) if self.quick_configs is not None else self.configs_for(backend)
            return [*base, *(c for c in self.quick_backend_configs.get(backend, ()) if c not in base)]
        return [*self.configs, *self.backend_configs.get(backend, ())]

    def cases(
        self, backend: str, scope: str, device: str | None = None, load_best: BestLoader | None = None,
        dialect: str | None = None,
    ) -> list[Case]:
        """``load_best`` is required when the sweep names ``best_configs``; ``device`` (the backend's accelerator)
        makes it prefer a winner recorded on the same device; ``dialect`` the body dialect ``backend`` builds (see
        ``configs_for``)."""
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
                    config = problem.family.config_from_dict(best)
                    cases.append(Case(problem=problem, config=config, label="best"))
        return cases

    def vendor_cases(self, backend: str, scope: str, dialect: str | None = None) -> list[VendorCase]:
        """One vendor item per problem; ``dialect`` (the backend's) lets a family's sweep offer the vendor libraries
        of that dialect."""
        if not (self.vendor and self.applies_to(backend)):
            return []
        return [VendorCase(problem=p) for p in self.problems_for(scope)]

