"""TOY: ``ToyLangBackend``, a new backend built on backends/backend_base.py's ``TileLangBackend``:
it says only what the base declares abstract (its traits, target kind, target, on-chip scope,
lowering, plan, build, inputs, device sync and timer); everything else is the base's.  Its
"lowering" reads the toy family's Python body (tests/toys/toy_family.py, dialect ``toy``) and
its device is this host, timed with ``perf_counter``: a real measurement of a real function,
never a result about an accelerator.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import SimpleNamespace

from tlbench.backends.backend_base import TileLangBackend
from tlbench.harness.core import budget, space
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.backend_api import Compiled
from tlbench.harness.core.backend_traits import DefaultTraits
from tlbench.harness.core.cases import Plan


@dataclass(frozen=True)
class ToyLangTraits(DefaultTraits):
    dialect: str = "toy"


class Floats(list):
    """A host output the base's poison fills with NaN (``poison_``)."""

    def poison_(self):
        self[:] = [float("nan")] * len(self)


class HostTimer:
    method = "perf_counter around the toylang kernel (host CPU)"
    l2_flush_bytes = 0

    def __init__(self, run):
        self.run, self.notes = run, []

    def batch(self, k):
        times = []
        for _ in range(k):
            start = time.perf_counter()
            self.run()
            times.append(time.perf_counter() - start)
        return times

    def telemetry(self):
        return None


class ToyLangBackend(TileLangBackend):
    traits = ToyLangTraits("toylang", label="TOYLANG", color="#008080")
    target_kind = "toylang"

    def __init__(self, options):
        self.options = options

    @property
    def target(self):
        return "toylang host"

    def device_blocker(self):
        return None

    def device_info(self):
        return {"backend": self.name, "target": self.target, "accelerator": "host CPU (toylang)", "tilelang": None}

    def scopes(self):
        return (budget.Scope("toy.sram", 4 * budget.KiB),)

    def rejection(self, case):
        return space.reject(case, self.scopes(), self.dialect)

    def _lower_with_facts(self, func, target, pass_configs, shape_values):
        source = f"{target}: {func.__qualname__}"
        return SimpleNamespace(kernel_source=source), SimpleNamespace(source=source)

    def _plan(self, case, facts, built):
        used = self.budget(case).uses
        return Plan(backend=self.name, target=self.target, pipeline={"kind": "none"}, buffers=[],
                    bytes_per_scope={u.scope: u.needed for u in used}, limits={u.scope: u.capacity for u in used},
                    features={"built": built})

    def compile(self, case, cold):
        phases = {}
        func, facts = self._lower(case, phases)
        return Compiled(case=case, handle=func, plan=self._plan(case, facts, True),
                        compile_seconds=phases[self.lowered_phase], phases_s=phases)

    def make_inputs(self, problem, seed, config=None):
        inputs = ask.make_inputs(problem, seed, None, self.dialect, config)
        return {**inputs, "c": Floats(inputs["c"])}

    def _synchronize(self):
        return None

    def timer(self, runnable, inputs, flush_l2):
        return HostTimer(self._runner(runnable, inputs, timed=True)[0])
