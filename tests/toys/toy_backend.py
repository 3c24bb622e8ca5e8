"""TOY: a toy backend that exists only to prove the backend seam from tests/ alone.  It is a
real ``Backend`` (harness/core/backend_api.py) with its own knowledge, none of it in harness/:
an on-chip ``toy.sram`` of 4 KiB, a rejection rule of its own (``lanes``: threads must fill
64-lane vectors), its traits (colour, plan summary, machine-info key, worker pinning through
``TOY_VISIBLE_DEVICES``).  Its "device" is this host: the family's body for the ``toy``
dialect runs in Python and is timed with ``perf_counter`` - a real measurement of a real
function, never a result about an accelerator.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

from tlbench.harness.core import budget, space
from tlbench.harness.core.backend_traits import DefaultTraits
from tlbench.harness.core.backend_api import Compiled
from tlbench.harness.core.cases import Plan, VendorCase

LANES = 64


@dataclass(frozen=True)
class ToyTraits(DefaultTraits):
    def plan_summary(self, plan: Mapping[str, Any]) -> str:
        return f"toy sram {(plan.get('bytes_per_scope') or {}).get('toy.sram')} B"

    def device_env(self, device: str) -> dict[str, str]:
        return {"TOY_VISIBLE_DEVICES": device}


def _lanes(case) -> str | None:
    threads = getattr(case.config, "threads", LANES)
    return None if threads % LANES == 0 else f"threads={threads} does not fill {LANES}-lane vectors"


class ToyBackend:
    name = "toy"
    dialect = "toy"
    traits = ToyTraits("toy", label="TOY", color="#aa00aa", machine_info_keys=("toy_version",))

    def __init__(self, options):
        self.options = options

    def compile_blocker(self):
        return None

    def device_blocker(self):
        return None

    def device_info(self):
        return {"backend": "toy", "target": "toy", "accelerator": "host CPU (toy)", "tilelang": None, "toy_version": "1"}

    def scopes(self):
        return (budget.Scope("toy.sram", 4 * budget.KiB),)

    def budget(self, case):
        return budget.check(case, self.scopes(), self.dialect)

    def rejection(self, case):
        return space.reject(case, self.scopes(), self.dialect, rules=[("lanes", _lanes)])

    def kernel_source(self, case):
        return f"toy {case.config.config_id}"

    def compile(self, case, cold):
        start = time.perf_counter()
        kernel = case.family.build(case.problem, case.config, self.dialect)
        used = self.budget(case).uses
        plan = Plan(backend="toy", target="toy", pipeline={"kind": "none", "num_stages": case.config.num_stages},
                    buffers=[], bytes_per_scope={u.scope: u.needed for u in used}, limits={u.scope: u.capacity for u in used})
        seconds = time.perf_counter() - start
        return Compiled(case=case, handle=kernel, plan=plan, compile_seconds=seconds, phases_s={"build": seconds})

    def inspect(self, compiled):
        return compiled.plan

    def make_inputs(self, problem, seed):
        return problem.family.make_inputs(problem, seed, None)

    def _call(self, runnable, inputs):
        if isinstance(runnable, VendorCase):  # the "library": Python's own sum of pairs
            a, b, c = inputs["a"], inputs["b"], inputs["c"]
            return lambda: c.__setitem__(slice(None), [x + y for x, y in zip(a, b)])
        kernel, args = runnable.handle, runnable.case.family.kernel_args(inputs)
        return lambda: kernel(*args)

    def check(self, runnable, inputs):
        problem = runnable.problem if isinstance(runnable, VendorCase) else runnable.case.problem
        out = problem.family.output(inputs)
        out[:] = [float("nan")] * len(out)
        self._call(runnable, inputs)()
        return problem.family.check(inputs, problem)

    def timer(self, runnable, inputs, flush_l2):
        return ToyTimer(self._call(runnable, inputs))


class ToyTimer:
    method = "perf_counter around the toy kernel (host CPU)"
    l2_flush_bytes = 0

    def __init__(self, run):
        self._run = run
        self.notes = []

    def batch(self, k):
        out = []
        for _ in range(k):
            start = time.perf_counter()
            self._run()
            out.append(time.perf_counter() - start)
        return out

    def telemetry(self):
        return None
