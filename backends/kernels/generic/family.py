"""The kernel family of one kernel a suite declared through the generic path.

Contract: ``GenericFamily`` implements harness/core/family.py's ``KernelFamily`` (and the
optional ``kernel_traits`` / ``vendor_call`` of harness/core/kernel_traits.py) for a kernel
named by its factory: problems and configs are harness/core/described.py's plain-valued
types, so its records describe themselves and every reader reads them without this object.
- ``build``: the body for the backend's dialect (``bodies[dialect]``, else ``bodies["*"]``),
  called with the sizes and the config's axes as keyword arguments (backends/kernels/generic/
  factory.py); a dialect with no body is refused by ``validate`` before anything compiles,
  with that reason.
- ``footprint``: the suite's ``footprint(dialect=..., **sizes, **axes) -> {scope: bytes}``
  (or ``{scope: (needed, minimum)}``); without one, () - the backend then checks the compiled
  kernel's buffers against its scopes after lowering.
- inputs: the suite's ``inputs(device=..., **sizes)`` gives the leading parameters; tlbench
  allocates the rest (the outputs) from the PrimFunc; ``check`` compares them with the
  suite's ``reference(*inputs)``.  Either callable that names a ``dialect`` parameter is
  told the backend's dialect.  ``vendor_call`` runs the suite's ``vendor(*inputs)``.
- Any callable may be given as ``"module:attribute"`` (imported where first used: a suite
  that names its bodies so costs its collection no tilelang or torch import).
- Pickled by reference (``__reduce__``): a worker process imports the suite module that
  declared the kernel and takes the family from its ``SWEEP``, so the user's callables never
  cross a process boundary.
- Thread-safe: a module that does not import by name is loaded from its file (``exec``) under
  one process-wide lock, and every lookup here takes that lock, so a compile thread never sees
  another thread's half-executed module (with 16 compile threads it did: ``module ... has no
  attribute ...`` for a body the file defines).
"""

from __future__ import annotations

import importlib
import inspect
import importlib.util
import sys
import threading
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from tlbench.harness.core.budget import Scope, ScopeUse, scope_named
from tlbench.harness.core.cases import CheckResult
from tlbench.harness.core.described import DescribedConfig, DescribedProblem, Params, problem_label, stage_facts
from tlbench.harness.core.family import CaseIdParts, StagePoint

from tlbench.backends.kernels.generic import factory as factories
from tlbench.backends.kernels.generic.tensors import KernelInputs, allocate, compare

ANY_DIALECT = "*"
_MODULE_LOADING = threading.RLock()  # held while a module is looked up or exec'd from its file (reentrant: a suite's exec resolves)


def resolve(ref: Any, near: str = "") -> Any:
    """A callable as given, or the one a ``"module:attribute"`` string names (imported now).
    A module that does not import by name is looked for beside the file ``near`` (the suite
    that declared it), as pytest's rootdir insertion finds it, so a process that loads the
    suite without pytest (a tool, a worker) finds the suite's sibling module too."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    if not module or not attr:
        raise ValueError(f"{ref!r}: name a callable as 'module:attribute'")
    value = _import_near(module, near)
    for part in attr.split("."):
        value = getattr(value, part)
    return value


def _import_near(module: str, near: str) -> Any:
    with _MODULE_LOADING:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as missing:
            sibling = Path(near).parent / (module.replace(".", "/") + ".py") if near else None
            if missing.name != module.split(".")[0] or sibling is None or not sibling.is_file():
                raise
        return _exec_file(module, sibling)


def _exec_file(module: str, path: Any) -> Any:
    """``module`` loaded from ``path`` (the caller holds ``_MODULE_LOADING``); one already in
    ``sys.modules`` is returned; one whose exec raises is taken out again."""
    if module in sys.modules:
        return sys.modules[module]
    spec = importlib.util.spec_from_file_location(module, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{module}: cannot load {path}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded  # before exec, as an import does (dataclasses and pickle look it up)
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        sys.modules.pop(module, None)
        raise
    return loaded


@dataclass(eq=False)
class GenericFamily:
    name: str
    bodies: Mapping[str, Any]  # dialect (or "*") -> factory, or its "module:attribute"
    inputs: Callable[..., Sequence[Any]] | str
    reference: Callable[..., Any] | str | None = None
    vendor: Callable[..., Any] | str | None = None
    vendor_label: str | None = None
    flops_of: Callable[..., int] | None = None
    bytes_of: Callable[..., int] | None = None
    footprint_of: Callable[..., Mapping[str, Any] | None] | None = None
    refusal_of: Callable[..., str | None] | str | None = None  # (dialect=, **sizes, **axes) -> why not, or None
    rtol: float = 1e-2
    atol: float = 1e-2
    pass_configs: Mapping[str, Any] = field(default_factory=dict)
    module: str = ""  # the suite module that declared it (how a worker process finds it again)
    module_file: str = ""
    configs: Sequence[DescribedConfig] = ()  # the sweep's configs (output shapes are read from the first)
    problem_ids: Sequence[str] = ()

    described = True  # records carry family_described: readers need no entry point for it
    problem_type = DescribedProblem
    config_type = DescribedConfig

    def __reduce__(self) -> tuple[Any, ...]:
        return (find_family, (self.module, self.module_file, self.name))

    # -- types and ids ------------------------------------------------------------------------
    def problem(self, sizes: Mapping[str, Any]) -> DescribedProblem:
        return DescribedProblem(self.name, Params(sizes)).bound_to(self)

    def problem_from_dict(self, data: Mapping[str, Any]) -> DescribedProblem:
        return self.problem(data)

    def config_from_dict(self, data: Mapping[str, Any]) -> DescribedConfig:
        return DescribedConfig(Params(data))

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        for problem_id in sorted(self.problem_ids, key=len, reverse=True):
            if case_id.startswith(problem_id + "-"):
                rest = case_id[len(problem_id) + 1:]
                label, _, config_id = rest.partition("-") if rest.startswith("best-") else (None, "", rest)
                return CaseIdParts(problem_id, label, config_id)
        raise ValueError(f"{case_id!r} is not a case id of kernel {self.name!r} (problems: {', '.join(self.problem_ids)})")

    def stage_point(self, config: DescribedConfig) -> StagePoint:
        facts = stage_facts(config.values)
        return StagePoint(facts.tile, facts.loop_id, facts.loop_form, facts.num_stages)

    def problem_label(self, problem: DescribedProblem) -> str:
        return problem_label(problem.values)

    # -- what the harness and the backends ask -----------------------------------------------
    def body_for(self, dialect: str) -> Any | None:
        body = self.bodies.get(dialect, self.bodies.get(ANY_DIALECT))
        return None if body is None else resolve(body, self.module_file)

    def _has_body(self, dialect: str) -> bool:
        return dialect in self.bodies or ANY_DIALECT in self.bodies

    def validate(self, problem: DescribedProblem, config: DescribedConfig, dialect: str) -> str | None:
        if not self._has_body(dialect):
            return f"{self.name} has no body for the {dialect} dialect (it has: {', '.join(sorted(self.bodies))})"
        if self.refusal_of is not None:
            return resolve(self.refusal_of, self.module_file)(dialect=dialect, **problem.values, **config.values) or None
        return None

    def mma_tiles(self, problem: Any, config: Any) -> list[tuple[int, int]]:
        return []  # tilelang answers for the warp partition itself

    def flops(self, problem: DescribedProblem) -> int:
        return int(resolve(self.flops_of, self.module_file)(**problem.values)) if self.flops_of else 0

    def bytes_moved(self, problem: DescribedProblem) -> int:
        return int(resolve(self.bytes_of, self.module_file)(**problem.values)) if self.bytes_of else 0

    def footprint(self, problem: DescribedProblem, config: DescribedConfig, dialect: str,
                  scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        if self.footprint_of is None or not self._has_body(dialect):
            return ()
        declared = resolve(self.footprint_of, self.module_file)(dialect=dialect, **problem.values, **config.values) or {}
        uses = []
        for scope, used in declared.items():
            needed, minimum = used if isinstance(used, (tuple, list)) else (used, used)
            uses.append(scope_named(scopes, scope).use(int(needed), int(minimum)))
        return tuple(uses)

    def loop_trips(self, problem: Any, config: Any) -> int | None:
        return None

    def kernel_traits(self, problem: DescribedProblem, config: DescribedConfig, dialect: str) -> dict[str, Any]:
        body = self.body_for(dialect)
        options = factories.jit_options(body) if body is not None else {"pass_configs": {}, "target": None}
        facts = stage_facts(config.values)
        threads = config.values.get("threads")
        return {
            "loop_form": facts.loop_form if facts.num_stages is not None else None,
            "num_stages": facts.num_stages,
            "threads": threads if isinstance(threads, int) else None,
            "pass_configs": {**options["pass_configs"], **self.pass_configs},
            "target": options["target"],
            "body_modules": (str(factories.source_file(body)),) if body is not None else (),
            "shape_values": {k: v for k, v in problem.values.items() if isinstance(v, int) and not isinstance(v, bool)},
        }

    def build(self, problem: DescribedProblem, config: DescribedConfig, dialect: str) -> Any:
        body = self.body_for(dialect)
        if body is None:
            raise ValueError(self.validate(problem, config, dialect))
        return factories.prim_func(body, {**problem.values, **config.values}, optional=problem.values)

    # -- running ------------------------------------------------------------------------------
    def _output_specs(self, problem: DescribedProblem, dialect: str | None, made: Sequence[Any]) -> list[tuple[str, tuple[int, ...], str]]:
        """The outputs' (name, shape, dtype), symbolic dimensions bound from ``made`` (what
        inputs() returned), then from the sizes of the same name."""
        config = self.configs[0] if self.configs else DescribedConfig(Params())
        dialect = dialect if dialect is not None and self._has_body(dialect) else next(iter(self.bodies))
        try:
            return factories.output_specs(self.build(problem, config, dialect), made, problem.values)
        except ValueError as exc:
            raise ValueError(f"{self.name}: {exc}") from None

    def make_inputs(self, problem: DescribedProblem, seed: int, device: Any, dialect: str | None = None) -> KernelInputs:
        import torch

        torch.manual_seed(seed)
        make = resolve(self.inputs, self.module_file)
        made = list(make(device=device, **problem.values, **_dialect_kw(make, dialect)))
        outputs = allocate(self._output_specs(problem, dialect, made), device)
        return KernelInputs(made + outputs, len(made))

    def kernel_args(self, inputs: KernelInputs) -> tuple[Any, ...]:
        return tuple(inputs.args)

    def output(self, inputs: KernelInputs) -> Any:
        return inputs.outputs

    def check(self, inputs: KernelInputs, problem: DescribedProblem, dialect: str | None = None) -> CheckResult:
        if self.reference is None:
            raise ValueError(f"kernel {self.name!r} declares no reference: pass reference= to kernel_sweep")
        if inputs.expected is None:
            reference = resolve(self.reference, self.module_file)
            inputs.expected = reference(*inputs.inputs, **_dialect_kw(reference, dialect))
        return compare(inputs.outputs.tensors, inputs.expected, self.rtol, self.atol)

    def vendor_call(self, case: Any, inputs: KernelInputs, dialect: str, timed: bool) -> tuple[Callable[[], Any], str]:
        if self.vendor is None:
            raise ValueError(f"kernel {self.name!r} declares no vendor call: pass vendor= to kernel_sweep")
        args, vendor = inputs.inputs, resolve(self.vendor, self.module_file)
        label = self.vendor_label or f"{getattr(vendor, '__module__', None) or '?'}.{getattr(vendor, '__name__', repr(vendor))}"
        if timed:
            return (lambda: vendor(*args)), label
        return (lambda: inputs.write_outputs(vendor(*args))), label


def _dialect_kw(function: Callable[..., Any], dialect: str | None) -> dict[str, Any]:
    """``{"dialect": dialect}`` for a suite callable that names a ``dialect`` parameter."""
    try:
        named = "dialect" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        named = False
    return {"dialect": dialect} if named else {}


def find_family(module: str, module_file: str, name: str) -> GenericFamily:
    """The family ``name`` declared by suite ``module`` (imported here if it is not yet; from
    ``module_file`` where the name alone does not import)."""
    with _MODULE_LOADING:
        loaded = sys.modules.get(module)
        if loaded is None:
            try:
                loaded = importlib.import_module(module)
            except ImportError:
                loaded = _exec_file(module, module_file)
    for value in list(vars(loaded).values()):
        for problem in getattr(value, "problems", ()) or ():
            family = getattr(problem, "family", None)
            if isinstance(family, GenericFamily) and family.name == name:
                return family
    raise LookupError(f"suite module {module} ({module_file}) declares no kernel {name!r} in a SWEEP")
