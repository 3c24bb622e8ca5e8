"""The contract between the harness and a backend (the accelerators' backends, or a test's fake).

Contract: a backend is any object with the members of ``Backend`` below.  The harness only ever calls these; it
never imports a backend module and never branches on a backend's name: what differs between backends (on-chip scopes
and capacities, rejection rules, plan summary, machine-info keys, worker pinning, colour and figures) is asked of
the backend, here or through its ``traits`` (harness/core/backend_traits.py).  The kernel itself comes from the
case's family (``case.problem.family.build(problem, config, backend.dialect)``). Backends are found through the
``tlbench.backends`` entry-point group (a factory taking ``BackendOptions``) and through the
``pytest_tlbench_register_backends`` hook (used by tests to add a fake backend).

Errors a backend raises where it understands them:
- ``CompileError``: the compiler rejected the kernel; ``str()`` is the compiler's own words
  (``compile_failure_words(exc)``: a body that raised is named by its ``SuiteCodeError``).
- ``WrongResult`` is not raised: ``check`` returns a ``CheckResult`` with ``ok=False``.
- ``SuiteCodeError``: a suite's own code (its inputs, reference, vendor or check callable) raised; ``str()`` is one
  line naming the callable, the problem and the exception.  The item fails with it; the device is not suspected, so
  a device worker is not restarted for it (unless the backend's optional ``device_fault()`` says the device itself
  is broken).
``compile_blocker()`` / ``device_blocker()`` answer "what stops compiling / timing here?": ``None`` when nothing
does, else a sentence naming what is missing.

Optional methods (looked up with ``getattr``; a backend without them still works):
- ``device_profile(info) -> DeviceProfile | None``: the peak FLOP/s per dtype and memory bandwidth of the device
  ``device_info()`` describes, from published figures, each with its source; None for a device it has no figures for
  (reports read "peak unknown").
- ``kernel_body_hash(case) -> str | None``: a hash of the source of the kernel body the case compiles (None for the
  vendor library), stored in every record; the real backends answer ``kernel_traits.kernel_hash(case, dialect)`` and
  key every cache of a built kernel by it.
- ``lower(case) -> Compiled``: the cold lowering alone (plan recorded, no device compiler, no cache; ``handle``
  None).  A compile item whose first cold ``compile`` built a binary keeps that build as ``cold_build_once`` and
  times its rounds with ``lower`` (harness/measure/runner.py).
- ``lowering_key() -> str``: names what, besides the kernel, decides the lowered source (compiler version, target);
  the inert-key probe's answers are cached on disk under it. Without it the probe lowers in every process.
- ``calibrate(seconds) -> DeviceProfile``: measure this machine's own profile (vendor GEMM, a copy kernel); origin
  "calibrated", kept apart from the datasheet figures.
- ``warm_up_compile()``: one untimed lowering of small kernels of the backend's own, through its real passes;
  measures nothing.  A worker that times compile items calls it before it answers ``ready`` (its start overlaps
  collection), so the process's one-off costs of a first lowering are paid there; the compile phase's setup then
  compiles no item (harness/measure/setup_compile.py).  Without it, the setup is the first item's cold compile.
- ``device_fault() -> str | None``: after an exception in a device stage, whether the device context itself is
  broken (a sticky error: words) or still usable (None).  Asked only for a ``SuiteCodeError``; a backend without it
  keeps its worker for those.
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
    """The backend ``factory`` (``module:qualname``, imported here) makes with ``options``: how a child process
    (device worker, counting child, build child) makes its own backend."""
    from importlib import import_module

    module, _, qualname = factory.partition(":")
    made: Any = import_module(module)
    for part in qualname.split("."):
        made = getattr(made, part)
    return made(BackendOptions(dict(options or {})))


@dataclass
class Compiled:
    """A built kernel: backend-private ``handle``, its plan, and how long building took.

    ``compile_seconds`` is the headline a compile item reports (the cold build a user waits for); ``phases_s``
    breaks the work down (plan capture, nvcc, Z3 solve ...).
    """

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
        """Why the case cannot work here, before compiling: the family's validation, this backend's own rules (e.g.
        a warp partition), the budget (``harness.core.space.reject``)."""

    def kernel_source(self, case: Case) -> str:
        """The generated kernel source (lowering only): used to find swept keys that change nothing."""

    def compile(self, case: Case, cold: bool) -> Compiled:
        """Lower (and, where the toolchain exists, build) the kernel; ``cold`` bypasses caches."""

    def inspect(self, compiled: Compiled) -> Plan:
        """The pipeline plan the compiler chose."""

    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> Any:
        """Fresh random device inputs (never zeros) for the problem; ``config``: the case's config where the family
        makes inputs from part of it (``kernel_traits.inputs_key``)."""

    def check(self, runnable: Compiled | VendorCase, inputs: Any) -> CheckResult:
        """Run once on a poisoned output and compare with the reference."""

    def timer(self, runnable: Compiled | VendorCase, inputs: Any, flush_l2: bool) -> DeviceTimer:
        """A timer for kernel-only device time of ``runnable`` on ``inputs`` (checked first)."""


@runtime_checkable
class DeviceTimer(Protocol):
    """Times one prepared runnable; the harness (harness/measure) owns the sampling loop.

    ``batch(k)`` runs the callable k times, each after the L2 flush, and returns k kernel-only device times in
    seconds (flush excluded).  ``method`` names how (it may change after a fallback: the harness then drops the
    earlier samples); ``notes`` say why it fell back. ``telemetry()`` is the device's state right after the last
    batch (``sm_clock_mhz``, ``sm_clock_max_mhz``, ``temperature_c``, ``power_w``, ``throttle_reasons``) or None
    where the backend cannot read it."""

    method: str
    l2_flush_bytes: int
    notes: list[str]

    def batch(self, k: int) -> list[float]: ...

    def telemetry(self) -> dict[str, Any] | None: ...


BackendFactory = Callable[[BackendOptions], Backend]
