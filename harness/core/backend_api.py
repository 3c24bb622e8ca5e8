"""The contract between the harness and a backend (the accelerators' backends, or a test's fake).

Contract: a backend is any object with the members of ``Backend``; the harness never branches on
its name.  Backends come from the ``tlbench.backends`` entry points (a factory taking
``BackendOptions``) and the ``pytest_tlbench_register_backends`` hook.  A backend raises
``CompileError`` (the compiler's words) and ``SuiteCodeError`` (a suite's callable raised); a wrong
result is a ``CheckResult`` with ``ok=False``.

Optional methods (looked up with ``getattr``): ``device_profile(info)`` (published peaks),
``kernel_body_hash(case)``, ``lower(case)`` (the cold lowering alone), ``lowering_key()`` (caches
the inert-key probe), ``calibrate(seconds)``, ``warm_up_compile()`` (paid before ``ready``) and
``device_fault()`` (after a ``SuiteCodeError``: is the device context broken).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from .backend_traits import BackendTraits
from .budget import BudgetVerdict, Scope
from .space import Rejection
from .cases import Case, CheckResult, Plan, VendorCase


class CompileError(RuntimeError):
    """The compiler refused the kernel.  The message is the compiler's text, unabridged."""


class SuiteCodeError(RuntimeError):
    """A suite's own code raised (not the device, not the compiler): one line that names the callable, the problem
    and the exception, and says what to fix."""


def compile_failure_words(exc: BaseException) -> str:
    """A ``CompileError``'s text for ``exc``: a ``SuiteCodeError``'s own words (they name the body that raised),
    else ``<Type>: <the compiler's words>``."""
    return str(exc) if isinstance(exc, SuiteCodeError) else f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class BackendOptions:
    """Command-line choices a backend may read (``--tlbench-nvidia-arch`` ...)."""

    values: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def backend_from_ref(factory: str, options: Mapping[str, Any] | None = None) -> Any:
    """The backend ``factory`` (``module:qualname``) makes with ``options``: how a child process makes its own."""
    from importlib import import_module

    module, _, qualname = factory.partition(":")
    made: Any = import_module(module)
    for part in qualname.split("."):
        made = getattr(made, part)
    return made(BackendOptions(dict(options or {})))


@dataclass
class Compiled:
    """A built kernel: backend-private ``handle``, its plan, the cold build's seconds and their phases."""

    case: Case
    handle: Any
    plan: Plan
    compile_seconds: float
    phases_s: dict[str, float]


@runtime_checkable
class Backend(Protocol):
    name: str
    dialect: str  # which body a kernel family builds for this backend (its dialect name, e.g. cuda)
    traits: BackendTraits

    def compile_blocker(self) -> str | None:
        """What stops this machine compiling for the backend (None: nothing)."""

    def device_blocker(self) -> str | None:
        """What stops kernels being run and timed here (None: nothing)."""

    def device_info(self) -> dict[str, Any]:
        """Accelerator, driver, toolkit and library versions (or what is missing)."""

    def scopes(self) -> tuple[Scope, ...]:
        """The on-chip memory scopes, their capacities and the buffer roles each holds."""

    def budget(self, case: Case) -> BudgetVerdict:
        """On-chip footprint of the case (its family's rule) against ``scopes()``."""

    def rejection(self, case: Case) -> Rejection | None:
        """Why the case cannot work here, before compiling (family validation, backend rules, the budget)."""

    def kernel_source(self, case: Case) -> str:
        """The generated kernel source (lowering only): used to find swept keys that change nothing."""

    def compile(self, case: Case, cold: bool) -> Compiled:
        """Lower (and, where the toolchain exists, build) the kernel; ``cold`` bypasses caches."""

    def inspect(self, compiled: Compiled) -> Plan:
        """The pipeline plan the compiler chose."""

    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> Any:
        """Fresh random device inputs (never zeros); ``config`` where the family's inputs depend on it."""

    def check(self, runnable: Compiled | VendorCase, inputs: Any) -> CheckResult:
        """Run once on a poisoned output and compare with the reference."""

    def timer(self, runnable: Compiled | VendorCase, inputs: Any, flush_l2: bool) -> DeviceTimer:
        """A timer for kernel-only device time of ``runnable`` on ``inputs`` (checked first)."""


@runtime_checkable
class DeviceTimer(Protocol):
    """Times one prepared runnable: ``batch(k)`` returns k kernel-only device times in seconds, each after the L2
    flush.  ``method`` names how (a change after a fallback drops earlier samples; ``notes`` say why).
    ``telemetry()``: the device's clocks, temperature, power and throttle reasons after the last batch, or None."""

    method: str
    l2_flush_bytes: int
    notes: list[str]

    def batch(self, k: int) -> list[float]: ...

    def telemetry(self) -> dict[str, Any] | None: ...


BackendFactory = Callable[[BackendOptions], Backend]
