"""The device-execution seam: what the round-robin scheduler asks of a device.

Contract: a ``DeviceSession``: ``prepare(item) -> Prepared | Outcome`` (gate, compile, inputs once
per ``inputs_key``, one check), ``sample(item, k) -> Batch``, ``close()``; picklable arguments and
results.  ``InProcessSession(backend, ctx)`` runs here; ``WorkerDeviceSession(worker, ctx)`` in a
``WorkerSession``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.backend_api import Backend, CompileError, DeviceTimer, SuiteCodeError
from ..core.cases import CheckResult, Plan, VendorCase
from ..core.kernel_traits import input_dtypes, inputs_key
from ..core.record import BenchItem
from ..core.budget import plan_overflow
from .interrupt import interrupted_outcome
from .outcome import Outcome, RunContext, failed, gate, over_budget


@dataclass(frozen=True)
class Prepared:
    item_id: str
    method: str
    l2_flush_bytes: int
    check: CheckResult
    plan: Plan | None = None
    budget: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()
    seed: int | None = None
    dialect: str | None = None  # the backend's body dialect (a family's flops / bytes_moved may read it)
    input_dtypes: tuple[str, ...] | None = None  # the kernel's input tensors' dtypes (None: the family reports none)


@dataclass(frozen=True)
class Batch:
    samples_s: tuple[float, ...]
    method: str
    telemetry: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default=())


class DeviceSession(Protocol):
    def prepare(self, item: BenchItem) -> Prepared | Outcome: ...

    def sample(self, item: BenchItem, k: int) -> Batch: ...

    def close(self) -> None: ...


class InProcessSession:
    def __init__(self, backend: Backend, ctx: RunContext) -> None:
        self.backend, self.ctx = backend, ctx
        self._timers: dict[str, DeviceTimer] = {}
        self._inputs: dict[Any, Any] = {}
        self.steps_s: dict[str, float] = {}  # the last prepare's seconds per step (for the run trace)

    def _step(self, name: str, start: float) -> float:
        now = time.perf_counter()
        self.steps_s[name] = round(now - start, 4)
        return now

    def prepare(self, item: BenchItem) -> Prepared | Outcome:
        self.steps_s = {}
        start = time.perf_counter()
        gated = gate(item, self.backend)
        if gated is not None:
            return gated
        plan = budget = None
        if isinstance(item.case, VendorCase):
            runnable: Any = item.case
        else:
            try:
                runnable = self.ctx.compiled(self.backend, item.case)
            except CompileError as exc:
                return interrupted_outcome(exc, "compile", self.ctx.interrupted()) or failed("compile", str(exc), exc=exc)
            start = self._step("compiled", start)
            plan = self.backend.inspect(runnable)
            over = plan_overflow(plan)
            if over:  # the compiled kernel, not our estimate, says it cannot launch
                return over_budget(over, item.backend)
            budget = self.backend.budget(item.case).to_dict()
        problem = item.case.problem
        key = inputs_key(item.case)  # the problem, or what of the config the inputs are made from
        if key not in self._inputs:
            config = () if key == problem else (item.case.config,)
            try:
                self._inputs[key] = self.backend.make_inputs(problem, self.ctx.seed, *config)
            except SuiteCodeError as exc:  # the suite's inputs(): every item of the key fails with it, once made
                self._inputs[key] = exc
        inputs = self._inputs[key]
        if isinstance(inputs, SuiteCodeError):
            return failed("inputs", str(inputs), plan)
        start = self._step("inputs", start)
        try:
            check = self.backend.check(runnable, inputs)
        except SuiteCodeError as exc:  # the suite's reference, vendor or check callable
            return failed("check", str(exc), plan)
        start = self._step("check", start)
        if not check.ok:
            return failed("check", check.wrong_result_words(), plan)
        timer = self.backend.timer(runnable, inputs, self.ctx.policy.flush_l2)
        self._step("timer", start)
        self._timers[item.item_id] = timer
        return Prepared(item.item_id, timer.method, timer.l2_flush_bytes, check, plan, budget, tuple(timer.notes), self.ctx.seed,
                        getattr(self.backend, "dialect", None), input_dtypes(problem, inputs))

    def sample(self, item: BenchItem, k: int) -> Batch:
        timer = self._timers.get(item.item_id)
        if timer is None:
            raise RuntimeError(f"{item.item_id} was not prepared in this session")
        samples = timer.batch(k)
        return Batch(tuple(samples), timer.method, timer.telemetry(), tuple(timer.notes))

    def close(self) -> None:
        self._timers.clear()
        self._inputs.clear()


class WorkerDeviceSession:
    """A ``WorkerSession``'s ``DeviceSession`` for one phase: ``close`` ends the phase only."""

    def __init__(self, worker: Any, ctx: Any) -> None:
        self.worker, self.ctx = worker, ctx

    def prepare(self, item: BenchItem) -> Any:
        return self.worker.prepare(item, self.ctx.policy, self.ctx.compile_rounds, self.ctx.seed)

    def sample(self, item: BenchItem, k: int) -> Any:
        return self.worker.sample(item, k, self.ctx.policy, self.ctx.compile_rounds, self.ctx.seed)

    @property
    def device_info(self) -> dict[str, Any]:
        return self.worker.device_info

    def close(self) -> None:
        self.worker.end_phase()
