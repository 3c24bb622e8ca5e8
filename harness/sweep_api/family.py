"""The kernel family of one kernel a suite declared through ``kernel_sweep``.

Contract: ``GenericFamily`` implements harness/core/family.py's ``KernelFamily`` (and what
harness/core/kernel_traits.py asks) with the plain-valued problems and configs of
harness/core/described.py.  Suite callables' exceptions are ``SuiteCodeError``s naming the
callable and the problem; ``validate`` refuses a dialect with no body before compiling.  What
needs tilelang or torch is runtime.py's.  Pickled by reference (loading.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..core.budget import Scope, ScopeUse, scope_named
from ..core.cases import CheckResult
from ..core.described import DescribedConfig, DescribedProblem, Params, StageFacts
from ..core.family import CaseIdParts, StagePoint
from ..core.backend_api import SuiteCodeError
from ..core.space import Refusal

from .callables import Takes, named_what, suite_call
from .loading import find_family, resolve
from .rules import rule_for
from .runtime import runtime
from .vendors import ANY_DIALECT, VendorTable
from .words import CaseWords


def scope_use(scope: Scope, used: Any) -> ScopeUse:
    """A suite footprint's entry for one scope: bytes, ``(needed, minimum)``, or a dict of
    ``bytes`` (or ``needed``), ``minimum``, ``buffers`` (words) and ``variant`` (e.g. ``simt``)."""
    if isinstance(used, Mapping):
        needed = int(used.get("bytes", used.get("needed", 0)))
        return scope.use(needed, int(used.get("minimum", needed)), variant=used.get("variant"),
                         buffers=tuple(used.get("buffers", ())))
    needed, minimum = used if isinstance(used, (tuple, list)) else (used, used)
    return scope.use(int(needed), int(minimum))


@dataclass(eq=False)
class GenericFamily:
    name: str
    bodies: Mapping[str, Any]  # dialect (or "*") -> factory, PrimFunc, compiled kernel, or its "module:attribute"
    inputs: Callable[..., Sequence[Any]] | str
    reference: Callable[..., Any] | str | None = None
    vendors: VendorTable = field(default_factory=VendorTable)  # the vendor items per dialect (vendors.py)
    vendor_check: bool = True  # False: the vendor item is a speed reference, never judged
    flops_of: Callable[..., int] | str | None = None
    bytes_of: Callable[..., int] | str | None = None
    footprint_of: Callable[..., Mapping[str, Any] | None] | str | None = None
    refusal_of: Callable[..., str | None] | str | None = None  # the suite's validate: why not, or None
    mma_tiles_of: Callable[..., Sequence[tuple[int, int]]] | str | None = None
    body_modules_of: Sequence[str] | Callable[..., Sequence[str]] | str | None = None  # more modules whose source is the body
    check_spec: Any = None  # checks.normalize(check=): None, a rule, a list or a dict of rules
    tolerance: Any = None  # checks.Tolerance from rtol= / atol= (the float default), or None
    constants: Mapping[str, Any] = field(default_factory=dict)
    pass_configs: Mapping[str, Any] | Callable[..., Mapping[str, Any]] | str = field(default_factory=dict)
    words: CaseWords = field(default_factory=CaseWords)  # the suite's ids and labels (words.py)
    module: str = ""  # the suite module that declared it (how a worker process finds it again)
    module_file: str = ""
    configs: Mapping[str, Sequence[DescribedConfig]] = field(default_factory=dict)  # dialect or "*" -> its configs
    scope_configs: Mapping[str, Mapping[str, Sequence[DescribedConfig]]] = field(default_factory=dict)  # smoke/quick ones
    problem_ids: Sequence[str] = ()
    problems: Sequence[DescribedProblem] = ()  # every problem of every scope (the preflight checks their names)
    smoke_problems: Sequence[DescribedProblem] = ()  # where the preflight runs the suite's callables
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)  # this family's answers so far (options, preflight)

    described = True  # records carry family_described: readers need no entry point for it

    def __reduce__(self) -> tuple[Any, ...]:
        return (find_family, (self.module, self.module_file, self.name))

    def problem(self, sizes: Mapping[str, Any]) -> DescribedProblem:
        return DescribedProblem(self.name, Params(sizes)).bound_to(self)

    def config(self, values: Mapping[str, Any]) -> DescribedConfig:
        return DescribedConfig(Params(values)).bound_to(self)

    problem_from_dict, config_from_dict = problem, config

    def problem_id_of(self, problem: DescribedProblem) -> str:
        return self.words.problem_id_of(self, problem.values)

    def config_id_of(self, config: DescribedConfig) -> str:
        return self.words.config_id_of(self, config.values)

    def stage_facts_of(self, config: DescribedConfig) -> StageFacts:
        return self.words.stage_of(self, config.values)

    def record_words(self, problem: DescribedProblem, config: DescribedConfig | None = None) -> dict[str, Any]:
        return self.words.record_words(self, problem, config)

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        for problem_id in sorted(self.problem_ids, key=len, reverse=True):
            if case_id.startswith(problem_id + "-"):
                rest = case_id[len(problem_id) + 1:]
                label, _, config_id = rest.partition("-") if rest.startswith("best-") else (None, "", rest)
                return CaseIdParts(problem_id, label, config_id)
        raise ValueError(f"{case_id!r} is not a case id of kernel {self.name!r} (problems: {', '.join(self.problem_ids)})")

    def stage_point(self, config: DescribedConfig) -> StagePoint:
        return config.stage.point()

    def problem_label(self, problem: DescribedProblem) -> str:
        return self.words.problem_label_of(self, problem.values)

    def resolved(self, ref: Any) -> Any:
        return resolve(ref, self.module_file)

    def named(self, problem: DescribedProblem, config: DescribedConfig | None, dialect: str | None) -> dict[str, Any]:
        """Every name on offer to a suite callable: constants, sizes, axes, ``dialect``."""
        return {**self.constants, **problem.values, **(config.values if config is not None else {}),
                **({"dialect": dialect} if dialect is not None else {})}

    def call(self, what: str, ref: Any, values: Mapping[str, Any], positional: Sequence[Any] = (),
             problem: DescribedProblem | None = None) -> Any:
        where = f"kernel {self.name}" + (f", problem {problem.problem_id}" if problem is not None else "")
        return suite_call(named_what(what, self.resolved(ref)), self.resolved(ref), values, positional, where)

    def configs_for(self, dialect: str | None, scope: str = "full") -> list[DescribedConfig]:
        """The configs of ``dialect``'s body (one without axes where it declares none), or the
        scope's own where the suite names them (none for a dialect that table lacks)."""
        table = self.scope_configs.get(scope)
        if table is not None:
            return list(table.get(dialect, table.get(ANY_DIALECT, ())))
        if dialect is not None and dialect in self.configs:
            return list(self.configs[dialect])
        return list(self.configs.get(ANY_DIALECT, ())) or [self.config({})]

    def body_for(self, dialect: str) -> Any | None:
        body = self.bodies.get(dialect, self.bodies.get(ANY_DIALECT))
        return None if body is None else self.resolved(body)

    def some_dialect(self) -> str:
        """A dialect that has a body (a named one first; ``"*"`` for a body of every dialect)."""
        return next((k for k in self.bodies if k != ANY_DIALECT), ANY_DIALECT)

    def has_body(self, dialect: str) -> bool:
        return dialect in self.bodies or ANY_DIALECT in self.bodies

    def validate(self, problem: DescribedProblem, config: DescribedConfig, dialect: str) -> str | None:
        if not self.has_body(dialect):
            return Refusal(f"{self.name} has no body for the {dialect} dialect (it has: {', '.join(sorted(self.bodies))})",
                           "no body")
        if self.refusal_of is None:
            return None
        try:
            reason = self.call("validate", self.refusal_of, self.named(problem, config, dialect), problem=problem)
        except Exception as exc:  # noqa: BLE001 - the preflight fails the items with it; here it only keeps collection going
            return Refusal(str(exc), "invalid")
        if not reason:
            return None
        return reason if isinstance(reason, Refusal) else Refusal(str(reason), "invalid")  # pruned(...) keeps its kind

    def portable(self, problem: DescribedProblem, config: DescribedConfig | None) -> bool | None:
        """True: bodies for two or more dialects, none refused by ``validate``; False: refused for
        one, or a one-dialect suite; None: no config, or a ``"*"`` body."""
        named = [d for d in self.bodies if d != ANY_DIALECT]
        if config is None or ANY_DIALECT in self.bodies:
            return None
        return len(named) > 1 and all(self.validate(problem, config, d) is None for d in named)

    def mma_tiles(self, problem: DescribedProblem, config: DescribedConfig) -> list[tuple[int, int]]:
        """The suite's ``mma_tiles`` (whose warp partition a backend checks); [] where none."""
        if self.mma_tiles_of is None:
            return []
        try:
            tiles = self.call("mma_tiles", self.mma_tiles_of, self.named(problem, config, None), problem=problem) or []
        except SuiteCodeError:  # the preflight fails its items with these words
            return []
        return [(int(m), int(n)) for m, n in tiles]

    def flops(self, problem: DescribedProblem, dialect: str | None = None) -> int:
        return int(self.call("flops", self.flops_of, self.named(problem, None, dialect), problem=problem)) if self.flops_of else 0

    def bytes_moved(self, problem: DescribedProblem, dialect: str | None = None) -> int:
        if not self.bytes_of:
            return 0
        return int(self.call("bytes_moved", self.bytes_of, self.named(problem, None, dialect), problem=problem))

    def footprint(self, problem: DescribedProblem, config: DescribedConfig, dialect: str,
                  scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        if self.footprint_of is None or not self.has_body(dialect):
            return ()
        try:
            declared = self.call("footprint", self.footprint_of, self.named(problem, config, dialect), problem=problem) or {}
        except SuiteCodeError:  # the preflight fails its items with these words; the compiled kernel's buffers are checked
            return ()
        return tuple(scope_use(scope_named(scopes, scope), used) for scope, used in declared.items())

    def loop_trips(self, problem: DescribedProblem, config: DescribedConfig) -> int | None:
        return self.words.loop_trips_of(self, problem.values, config.values)

    def more_body_modules(self, problem: DescribedProblem, config: DescribedConfig, dialect: str) -> tuple[str, ...]:
        """The suite's ``body_modules``: a list, or what its callable says for this case."""
        given = self.body_modules_of
        if given is None:
            return ()
        if isinstance(given, (list, tuple)):
            return tuple(map(str, given))
        return tuple(map(str, self.call("body_modules", given, self.named(problem, config, dialect), problem=problem) or ()))

    def suite_pass_configs(self, problem: DescribedProblem, config: DescribedConfig, dialect: str) -> dict[str, Any]:
        """The suite's ``pass_configs``: a dict, or what its callable says for this case."""
        given = self.pass_configs
        if isinstance(given, Mapping):
            return dict(given)
        return dict(self.call("pass_configs", given, self.named(problem, config, dialect), problem=problem) or {})

    def inputs_axes(self, config: DescribedConfig) -> dict[str, Any]:
        """The axes of ``config`` the suite's ``inputs`` names (all with ``**kwargs``)."""
        takes = Takes.of(self.resolved(self.inputs))
        if takes is None:
            return {}
        return {k: v for k, v in config.values.items() if takes.var_keyword or k in takes.keyword}

    def inputs_key(self, problem: DescribedProblem, config: DescribedConfig) -> Any:
        """The problem, with the axes the suite's ``inputs`` names (inputs laid out by the tile)."""
        axes = self.inputs_axes(config)
        return problem if not axes else (problem, tuple(sorted(axes.items())))

    def answer_values(self, problem: DescribedProblem, axes: Mapping[str, Any], dialect: str | None) -> dict[str, Any]:
        """The names offered to the reference, the vendor and the check (the inputs' axes only)."""
        return {**self.named(problem, None, dialect), **axes}

    def kernel_args(self, inputs: Any) -> tuple[Any, ...]:
        return tuple(inputs.args)

    def output(self, inputs: Any) -> Any:
        return inputs.outputs

    def rules(self, inputs: Any) -> list[Any]:
        return [rule_for(self.check_spec, k, name, dtype, self.tolerance)
                for k, (name, dtype) in enumerate(zip(inputs.output_names, inputs.output_dtypes))]

    def input_dtypes(self, inputs: Any) -> tuple[str, ...] | None:
        return runtime().input_dtypes(inputs)


def _runtime_member(name: str) -> Callable[..., Any]:
    """``GenericFamily.<name>``: the runtime's function of that name, given the family first."""
    def member(self: GenericFamily, *args: Any, **kwargs: Any) -> Any:
        return getattr(runtime(), name)(self, *args, **kwargs)

    member.__name__ = member.__qualname__ = name
    return member


for _name in ("kernel_traits", "build", "preflight", "preflight_traceback", "output_specs", "make_inputs",
              "expected", "check", "vendor_call"):
    setattr(GenericFamily, _name, _runtime_member(_name))
