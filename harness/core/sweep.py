"""A suite's declaration of what to benchmark, expanded into cases with stable ids.

Contract: a suite module defines ``SWEEP = Sweep(...)``.  ``Sweep.cases(backend, scope)``
returns the ``Case`` list for one backend: the problems of that scope crossed with the
configs (listed, expanded from ``axes``, plus any backend-only configs), in declaration
order.  ``vendor=True`` adds one vendor-library item per problem; ``best_configs`` (a
results/best_configs.json written by autotune) adds the recorded winner per problem as a
case labelled ``best``.  ``probe_inert_keys`` asks the plugin to lower pairs of configs at
collection to find swept keys that do not change the kernel.  Ids are ``<problem>-<config>`` (see harness/core/cases.py)
and never depend on the backend, so the same kernel can be joined across backends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Iterable, Mapping, Sequence

from harness.results.best_configs import load_best
from harness.core.space import REJECTION_KINDS, Axes
from harness.core.cases import Case, GemmConfig, GemmProblem, VendorCase

SCOPES = ("smoke", "full")


@dataclass(frozen=True)
class Sweep:
    name: str
    problems: Sequence[GemmProblem]
    configs: Sequence[GemmConfig]
    smoke_problems: Sequence[GemmProblem] = ()
    backend_configs: Mapping[str, Sequence[GemmConfig]] = field(default_factory=dict)
    backends: Sequence[str] | None = None  # None: every selected backend
    vendor: bool = False
    description: str = ""
    axes: Axes | None = None
    best_configs: str | None = None
    probe_inert_keys: bool = False
    kinds: Sequence[str] = ("compile", "device")  # measure kinds this suite makes items for
    # Which pre-compile rejections skip an item.  The on-chip budget always does (an over-
    # budget kernel only fails at launch); drop "divisibility"/"warp-partition" to let the
    # compiler answer with its own words instead of tlbench's prediction of them.
    skip_on: Sequence[str] = REJECTION_KINDS

    def problems_for(self, scope: str) -> list[GemmProblem]:
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
        if scope == "smoke":
            return list(self.smoke_problems or self.problems[:1])
        seen: list[GemmProblem] = []
        for p in [*self.smoke_problems, *self.problems]:
            if p not in seen:
                seen.append(p)
        return seen

    def applies_to(self, backend: str) -> bool:
        return self.backends is None or backend in self.backends

    def configs_for(self, backend: str) -> list[GemmConfig]:
        expanded = self.axes.configs() if self.axes is not None else []
        return [*self.configs, *expanded, *self.backend_configs.get(backend, ())]

    def cases(self, backend: str, scope: str, device: str | None = None) -> list[Case]:
        if not self.applies_to(backend):
            return []
        problems = self.problems_for(scope)
        cases = [Case(problem=p, config=c) for p, c in product(problems, self.configs_for(backend))]
        if self.best_configs:
            for problem in problems:
                best = load_best(self.best_configs, backend, problem, device)
                if best is not None:
                    cases.append(Case(problem=problem, config=best, label="best"))
        return cases

    def vendor_cases(self, backend: str, scope: str) -> list[VendorCase]:
        if not (self.vendor and self.applies_to(backend)):
            return []
        return [VendorCase(problem=p) for p in self.problems_for(scope)]


def stage_configs(
    tiles: Iterable[tuple[int, int, int, int]],
    num_stages: Iterable[int],
    manual: bool = True,
    serial: bool = True,
    **extra,
) -> list[GemmConfig]:
    """The seed's three loop forms for each (block_M, block_N, block_K, threads) tile."""
    stages = list(num_stages)
    configs: list[GemmConfig] = []
    for block_M, block_N, block_K, threads in tiles:
        tile = dict(block_M=block_M, block_N=block_N, block_K=block_K, threads=threads, **extra)
        configs += [GemmConfig(**tile, loop_form="auto", num_stages=s) for s in stages]
        if manual:
            configs.append(GemmConfig(**tile, loop_form="manual", num_stages=None))
        if serial:
            configs.append(GemmConfig(**tile, loop_form="serial", num_stages=None))
    return configs
