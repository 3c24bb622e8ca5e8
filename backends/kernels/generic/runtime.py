"""The backend half of ``kernel_sweep``'s family: what traces a body, makes tensors and judges them.

Contract: the module the ``tlbench.sweep_runtime`` entry point names (harness/sweep_api/
runtime.py).  ``GenericFamily`` hands itself first to ``kernel_traits``, ``build`` (an exception
of the body is a ``SuiteCodeError`` naming it, the problem and the config), ``make_inputs``,
``output_specs``, ``expected`` (once per inputs), ``check``, ``vendor_call`` and ``preflight``
(once per dialect, kept on the family).  Importing it imports neither tilelang nor torch.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from tlbench.harness.core.backend_api import SuiteCodeError
from tlbench.harness.core.cases import CheckResult
from tlbench.harness.sweep_api.callables import failure_words
from tlbench.harness.sweep_api.rules import Bound
from tlbench.harness.sweep_api.vendors import vendor_run

from . import factory as factories
from .factory import is_body  # noqa: F401 - kernel_sweep asks it
from .judges import judge  # noqa: F401 - a rule's judge asks it
from . import tensors
from .tensors import KernelInputs, allocate, as_list

EXAMPLE_DIALECTS = ("cuda", "ascend")  # the dialects kernel_sweep's error messages name as an example


def _options(family: Any, problem: Any, config: Any, dialect: str, body: Any) -> factories.JitOptions:
    """The jit's own options, or (a plain function around a jit call) the inner jit's, read from
    the first build of that dialect's body (one that cannot be traced has none)."""
    if factories._jit(body) is not None or not callable(body) or factories.is_compiled_kernel(body):
        return factories.jit_options(body)
    key = ("options", dialect)
    if key not in family.memo:
        try:
            family.memo[key] = factories.built(body, family.named(problem, config, None)).options
        except Exception:  # noqa: BLE001 - reported by the preflight and by the build itself
            family.memo[key] = factories.jit_options(None)
    return family.memo[key]


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def kernel_traits(family: Any, problem: Any, config: Any, dialect: str) -> dict[str, Any]:
    """The ``KernelTraits`` fields this family answers (a mapping: callers index it)."""
    body = family.body_for(dialect)
    options = factories.jit_options(None) if body is None else _options(family, problem, config, dialect, body)
    facts = config.stage
    source = factories.source_file(body) if body is not None else None
    return {
        "loop_form": facts.loop_form if facts.loop_form != "none" else None,
        "num_stages": facts.num_stages,
        "threads": _whole(config.values.get("threads")),
        "num_cores": _whole(config.values.get("num_cores")),
        "enable_offset": config.values.get("enable_offset") is True,
        "pass_configs": {**options.pass_configs, **family.suite_pass_configs(problem, config, dialect)},
        "target": options.target,
        "body_modules": (str(source or family.module_file), *family.more_body_modules(problem, config, dialect))
        if body is not None else (),
        "fixed_arguments": json.dumps(sorted(family.constants.items()), default=str) if family.constants else "",
        "shape_values": {k: v for k, v in problem.values.items() if _whole(v) is not None},
    }


def build(family: Any, problem: Any, config: Any, dialect: str) -> Any:
    body = family.body_for(dialect)
    if body is None:
        raise ValueError(family.validate(problem, config, dialect))
    try:
        made = factories.built(body, family.named(problem, config, None))
    except Exception as exc:  # noqa: BLE001 - the body's own code raised: the item's line names it
        where = f"kernel {family.name}, problem {problem.problem_id}" + (f", config {config.config_id}" if config.values else "")
        raise SuiteCodeError(failure_words(f"body {factories.factory_name(body)}", exc, where)) from exc
    family.memo.setdefault(("options", dialect), made.options)
    return made.func


def preflight(family: Any, problem: Any, dialect: str, device_memory: int | None = None) -> tuple[list[str], list[str]]:
    from .preflight import DEVICE_MEMORY, preflight

    return preflight(family, problem, dialect, device_memory or DEVICE_MEMORY)


def preflight_traceback(family: Any, dialect: str, line: str) -> str:
    from .preflight import preflight_traceback

    return preflight_traceback(family, dialect, line)


def output_specs(family: Any, problem: Any, config: Any, dialect: str, made: Sequence[Any]) -> list[tuple[str, tuple[int, ...], str]]:
    """The outputs' (name, shape, dtype), symbolic dimensions bound from ``made`` (what
    inputs() returned), then from the sizes of the same name."""
    try:
        return factories.output_specs(build(family, problem, config, dialect), made, problem.values)
    except ValueError as exc:
        raise ValueError(f"{family.name}: {exc}") from None


def make_inputs(family: Any, problem: Any, seed: int, device: Any, dialect: str | None = None, config: Any = None) -> KernelInputs:
    import torch

    body_dialect = dialect if dialect is not None and family.has_body(dialect) else family.some_dialect()
    config = config if config is not None else family.configs_for(body_dialect)[0]
    torch.manual_seed(seed)
    made = list(family.call("inputs", family.inputs, {**family.named(problem, config, dialect), "device": device}, problem=problem))
    specs = output_specs(family, problem, config, body_dialect, made)
    return KernelInputs(made + allocate(specs, device), len(made), output_names=tuple(s[0] for s in specs),
                        output_dtypes=tuple(s[2] for s in specs), axes=family.inputs_axes(config))


def input_dtypes(inputs: Any) -> tuple[str, ...] | None:
    """None where a backend called the kernel with inputs it made otherwise (not ``make_inputs``'s)."""
    return inputs.input_dtypes if isinstance(inputs, KernelInputs) else None


def expected(family: Any, inputs: KernelInputs, problem: Any, dialect: str | None) -> Any:
    if family.reference is None:
        raise ValueError(f"kernel {family.name!r} declares no reference: pass reference= to kernel_sweep")
    if inputs.expected is None:
        values = family.answer_values(problem, inputs.axes, dialect)
        inputs.expected = family.call("reference", family.reference, values, inputs.inputs, problem)
    return inputs.expected


def check(family: Any, inputs: KernelInputs, problem: Any, dialect: str | None = None, vendor: bool = False) -> CheckResult:
    if vendor and not family.vendor_check:
        return CheckResult(True, float("nan"), float("nan"), 0, 0, float("nan"), float("nan"),
                           "a speed reference (vendor_check=False): its output is not judged", rule="", checked=False)
    answers = expected(family, inputs, problem, dialect)
    values = family.answer_values(problem, inputs.axes, dialect)

    def user(rule: Any, out: Any, ref: Any) -> Any:
        return family.call("check", rule.function, values, (out, ref), problem)

    listed = as_list(answers)
    rules = [rule.given(family.call("check", rule.allowed, values, (listed[k], *inputs.inputs), problem))
             if isinstance(rule, Bound) and k < len(listed) else rule
             for k, rule in enumerate(family.rules(inputs))]
    return tensors.judge(inputs.outputs.tensors, answers, rules, inputs.output_names, user)


def vendor_call(family: Any, case: Any, inputs: KernelInputs, dialect: str, timed: bool) -> tuple[Callable[[], Any], str]:
    if not family.vendors:
        raise ValueError(f"kernel {family.name!r} declares no vendor call: pass vendor= to kernel_sweep")
    library = getattr(case, "library", None)
    vendor = family.vendors.function(dialect, library, family.resolved)
    where = f"kernel {family.name}, problem {case.problem.problem_id}"
    values = family.answer_values(case.problem, inputs.axes, dialect)
    return vendor_run(family.vendors, library, vendor, values, inputs, timed, family.vendor_check, where)
