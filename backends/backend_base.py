"""What every tilelang backend shares (backends/nvidia/, backends/ascend/): ``TileLangBackend``.

Contract: a backend subclasses it, sets ``traits``, ``target_kind`` and where it has them
``profiles`` and ``target_label``, and implements what is abstract below (registered through
pyproject.toml's entry points).  The base answers the rest of harness/core/backend_api.py's
``Backend`` from harness/core/kernel_traits.py; a kernel asking for a target of another kind is
refused with a ``CompileError``.  Importing this module imports neither torch nor tilelang.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any

from .kernel_call import kernel_runner
from .output_poison import poison
from tlbench.harness.core import budget, space
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.backend_api import Compiled, CompileError, compile_failure_words
from tlbench.harness.core.backend_traits import BackendTraits
from tlbench.harness.core.cases import Case, CheckResult, Plan, VendorCase
from tlbench.harness.core.device_profile import DeviceProfile, match_profile


def refuse_foreign_target(case: Any, dialect: str, kind: str, backend_name: str, own: Any) -> None:
    wanted = ask.kernel_traits(case, dialect).target
    asked = (wanted.get("kind") if isinstance(wanted, dict) else str(wanted).split()[0]) if wanted else None
    if asked not in (None, "auto", kind):
        raise CompileError(f"the kernel asks for target {wanted!r}; the {backend_name} backend builds for {own}")


def out_idx(case: Any, dialect: str) -> list[int] | None:
    indices = ask.kernel_traits(case, dialect).out_idx
    return list(indices) if indices else None


class TileLangBackend(ABC):
    traits: BackendTraits
    name: str
    dialect: str
    target_kind: str
    target_label: str | None = None
    profiles: tuple[DeviceProfile, ...] = ()
    lowered_phase = "lower"  # the phases_s key of the timed lowering
    _changes = _compile_slowdown = _slowdown = _faults = None  # TEST ONLY hooks (tests/test_only/)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "traits" in cls.__dict__:
            cls.name, cls.dialect = cls.traits.name, cls.traits.dialect

    @property
    @abstractmethod
    def target(self) -> Any:
        """The tilelang/tvm target every case is lowered and built for."""

    @abstractmethod
    def device_blocker(self) -> str | None: ...

    @abstractmethod
    def device_info(self) -> dict[str, Any]: ...

    @abstractmethod
    def scopes(self) -> tuple[budget.Scope, ...]: ...

    @abstractmethod
    def rejection(self, case: Case) -> space.Rejection | None: ...

    @abstractmethod
    def _lower_with_facts(self, func: Any, target: Any, pass_configs: dict[str, Any] | None,
                          shape_values: dict[str, int]) -> tuple[Any, Any]:
        """``(artifact, facts)``: ``func`` lowered through the backend's passes, what they decided recorded."""

    @abstractmethod
    def _plan(self, case: Case, facts: Any, built: bool) -> Plan: ...

    @abstractmethod
    def compile(self, case: Case, cold: bool) -> Compiled: ...

    @abstractmethod
    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> dict[str, Any]: ...

    @abstractmethod
    def _synchronize(self) -> None:
        """Wait for the device; raises where its context is broken."""

    @abstractmethod
    def timer(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], flush_l2: bool) -> Any: ...

    def warm_up_kernels(self) -> tuple:
        """Makers of the backend's own small PrimFuncs (its compile_warm_up.py) that ``warm_up_compile`` lowers."""
        return ()

    def compile_blocker(self) -> str | None:
        return None  # tilelang lowers on any machine

    def kernel_body_hash(self, case: Case) -> str | None:
        """The source of every module of the case's body (harness/core/kernel_traits.py)."""
        return ask.kernel_hash(case, self.dialect)

    def device_profile(self, info: dict[str, Any]) -> DeviceProfile | None:
        """The published profile of the device named in ``info`` (None: peak unknown)."""
        return match_profile(self.profiles, info.get("accelerator"))

    def budget(self, case: Case) -> budget.BudgetVerdict:
        return budget.check(case, self.scopes(), self.dialect)

    def _build(self, case: Case):
        config = self._changes.config(case) if self._changes is not None else case.config
        return case.family.build(case.problem, config, self.dialect)

    def pass_configs(self, case: Case) -> dict[str, Any] | None:
        """The tilelang pass configs the case is lowered and built with (None: tilelang's defaults)."""
        return dict(ask.kernel_traits(case, self.dialect).pass_configs) or None

    def _shape_values(self, case: Case) -> dict[str, int]:
        """The case's values of the body's symbolic dimensions: the plan is read with them."""
        return dict(ask.kernel_traits(case, self.dialect).shape_values)

    def _target_for(self, case: Case) -> Any:
        refuse_foreign_target(case, self.dialect, self.target_kind, self.name, self.target_label or self.target)
        return self.target

    def _func_and_target(self, case: Case) -> tuple[Any, Any]:
        return self._build(case), self._target_for(case)

    def _test_only_words(self, case: Case) -> dict[str, str]:
        words = self._changes.words(case.case_id) if self._changes is not None else None
        return {"test_only": words} if words else {}

    def kernel_source(self, case: Case) -> str:
        func, target = self._func_and_target(case)
        return self._lower_with_facts(func, target, self.pass_configs(case), self._shape_values(case))[0].kernel_source

    def _lower(self, case: Case, phases: dict[str, float], slowdown: Any = None) -> tuple[Any, Any]:
        call_start = time.perf_counter()
        func, target = self._func_and_target(case)
        pass_configs = self.pass_configs(case)
        start = time.perf_counter()
        _, facts = self._lower_with_facts(func, target, pass_configs, self._shape_values(case))
        if self._changes is not None:  # TEST ONLY: extra work inside the timed lowering
            self._changes.work(case.case_id)
        if slowdown is not None:  # TEST ONLY (tests/test_only/compile_slowdown.py): the whole call x (1 + f)
            slowdown.spin_after(case.case_id, time.perf_counter() - call_start)
        phases[self.lowered_phase] = time.perf_counter() - start
        return func, facts

    def lower(self, case: Case) -> Compiled:
        """The cold lowering alone (no device compiler, no cache): what a compile item times."""
        phases: dict[str, float] = {}
        try:
            _, facts = self._lower(case, phases, self._compile_slowdown)
        except Exception as exc:  # the compiler's own words become the failure text
            raise CompileError(compile_failure_words(exc)) from exc
        return Compiled(case=case, handle=None, plan=self._plan(case, facts, False),
                        compile_seconds=phases[self.lowered_phase], phases_s=phases)

    def warm_up_compile(self) -> list:
        """The process's first lowering, of ``warm_up_kernels()``: their facts (tests read them; nothing measures them)."""
        return [self._lower_with_facts(make(), self.target, {}, {})[1] for make in self.warm_up_kernels()]

    def inspect(self, compiled: Compiled) -> Plan:
        return compiled.plan

    def _runner(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], timed: bool = False):
        """The callable (``timed``: the one that is timed), and the vendor item's exact label (None for a kernel)."""
        if isinstance(runnable, VendorCase):  # the family's own vendor call (timed: the call alone)
            return ask.vendor_call(runnable, inputs, self.dialect, timed)
        return kernel_runner(runnable.handle, runnable.case.family.kernel_args(inputs), write_outputs=not timed), None

    def check(self, runnable: Compiled | VendorCase, inputs: dict[str, Any]) -> CheckResult:
        run, _ = self._runner(runnable, inputs)
        problem = runnable.problem if isinstance(runnable, VendorCase) else runnable.case.problem
        poison(problem.family.output(inputs))  # what each output dtype can hold (backends/output_poison.py)
        run()
        self._synchronize()
        return ask.check(inputs, problem, self.dialect, vendor=isinstance(runnable, VendorCase))

    def device_fault(self) -> str | None:
        """The words of a broken device context (a sticky error raises on sync), else None."""
        try:
            self._synchronize()
        except Exception as exc:  # noqa: BLE001 - the device's own words
            return f"{type(exc).__name__}: {exc}"
        return None
