"""The preflight: a user's kernel suite checked on CPU torch, before anything compiles.

Contract: ``preflight(family, problem, dialect, device_memory) -> (failures, notes)``: one line
per finding, naming the callable, the problem and the fix.  Run once per dialect: the body is
traced (never lowered) and the suite's callables run at the smoke size on CPU with the first
config ``validate`` keeps (the preflight accepts what the run accepts); ``problem`` is also
checked at its own size on the meta device.  A call CPU torch cannot run is a note.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from tlbench.harness.core import trace
from tlbench.harness.measure.outcome import traceback_of

from . import factory as factories
from tlbench.harness.sweep_api.callables import Takes, call_named, did_you_mean, is_device_error, one_line
from .tensors import as_list
from .preflight_names import NameChecks, Stop as _Stop, label_of as _label
from .preflight_sizes import SizeChecks
from tlbench.harness.sweep_api.rules import Bound, UserRule
from .preflight_tensors import TensorChecks, rules_of

DEVICE_MEMORY = 80 << 30  # bytes a problem may need on the device where the caller names none (an H100's 80 GiB)
CPU_WORDS = ("not implemented for 'CPU'", "from the 'CPU' backend", "Torch not compiled with CUDA", "CUDA driver",
             "No CUDA GPUs", "torch_npu", "Found no NVIDIA driver", "has no attribute 'npu'")


@dataclass
class Findings:
    sweep: list[str] = field(default_factory=list)  # failures of every problem
    by_problem: dict[Any, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    tracebacks: dict[str, str] = field(default_factory=dict)  # failure line -> the traceback of the exception behind it

    def fail(self, line: str, problem: Any = None, traceback: str = "") -> None:
        bucket = self.sweep if problem is None else self.by_problem.setdefault(problem, [])
        if line not in bucket and line not in self.sweep:
            bucket.append(line)
        if traceback:
            self.tracebacks.setdefault(line, traceback)

    def failures_for(self, problem: Any) -> list[str]:
        return [*self.sweep, *self.by_problem.get(problem, [])]

    @property
    def count(self) -> int:
        return len(self.sweep) + sum(map(len, self.by_problem.values()))


def preflight(family: Any, problem: Any, dialect: str, device_memory: int = DEVICE_MEMORY) -> tuple[list[str], list[str]]:
    key = ("preflight", dialect)
    if key not in family.memo:
        found = Findings()
        runner = _Preflight(family, dialect, found) if family.has_body(dialect) else None
        if runner is not None:
            runner.run()
        family.memo[key], family.memo[("preflight runner", dialect)] = found, runner
        trace.mark("preflight", kernel=family.name, dialect=dialect, failures=found.count)
    found, runner = family.memo[key], family.memo[("preflight runner", dialect)]
    sized = ("preflight size", dialect, problem, device_memory)  # this size's own findings, against this memory
    if sized not in family.memo:
        family.memo[sized] = []
        if runner is not None and runner.ready:
            runner.found = Findings(notes=found.notes, tracebacks=found.tracebacks)
            try:
                with _quiet_rng():
                    runner.check_size(problem, device_memory)
                family.memo[sized] = runner.found.failures_for(problem)
            finally:
                runner.found = found
    return [*found.failures_for(problem), *family.memo[sized]], list(found.notes)


def preflight_traceback(family: Any, dialect: str, line: str) -> str:
    """The traceback of the exception behind failure ``line`` of the preflight for ``dialect``
    ("" where no exception made it, or the preflight has not run)."""
    found = family.memo.get(("preflight", dialect))
    return found.tracebacks.get(line, "") if found is not None else ""


def _cpu_only(exc: BaseException) -> bool:
    """Whether ``exc`` says CPU torch cannot run the call (not that the suite is wrong)."""
    cause = exc.__cause__ or exc
    text = f"{type(cause).__name__}: {cause}"
    return isinstance(cause, NotImplementedError) or is_device_error(cause) or any(w in text for w in CPU_WORDS)


class _Preflight(NameChecks, TensorChecks, SizeChecks):
    def __init__(self, family: Any, dialect: str, found: Findings) -> None:
        self.family, self.dialect, self.found = family, dialect, found
        self.problem = family.smoke_problems[0]
        self.all_configs = family.configs_for(dialect)
        self.configs, self.config = self.all_configs, self.all_configs[0]
        self.refusals: dict[Any, bool] = {}
        self.at: Any = None  # the problem check_size is at (its findings are that problem's)
        self.meta_smoke: bool | None = None  # inputs and reference run on torch's meta device at the smoke size
        self.meta_error = ""
        self.memory: dict[Any, tuple[int, int]] = {}
        self.ready = False  # the whole sweep's checks passed: each problem may be checked at its size

    def where(self, problem: Any = None, config: Any = None) -> str:
        problem = problem or self.at or self.problem
        return f"{problem.problem_id} ({self.dialect} body" + (f", config {config.config_id})" if config is not None and config.values else ")")

    def fail(self, what: str, finding: str, fix: str, problem: Any = None, config: Any = None, per_problem: bool = False,
             exc: BaseException | None = None) -> None:
        problem, per_problem = problem or self.at, per_problem or self.at is not None
        self.found.fail(f"preflight {self.where(problem, config)}: {what}: {one_line(finding)}; fix: {fix}",
                        problem if per_problem else None, traceback_of(exc) if exc is not None else "")

    def note(self, what: str, words: str) -> None:
        line = f"preflight {self.where()}: {what}: {one_line(words)}"
        if line not in self.found.notes:
            self.found.notes.append(line)

    def run(self) -> None:
        try:
            self.body = self.family.body_for(self.dialect)
        except Exception as exc:  # noqa: BLE001 - a "module:attribute" that does not import
            self.fail("body", f"{type(exc).__name__}: {exc}", "name an importable module and attribute as 'module:attribute'", exc=exc)
            return
        self.callables = self._callables()
        if self.callables is None:
            return
        self.configs = [c for c in self.all_configs if any(not self.refused(p, c) for p in self.family.problems)]
        if not self.configs:
            self.note("validate", f"it refuses every config of the {self.dialect} body: nothing of it runs, nothing was checked")
            return
        self.config = next((c for c in self.configs if not self.refused(self.problem, c)), self.configs[0])
        before = self.found.count
        self.check_names()
        if self.found.count > before:
            return  # a missing name: tracing and calling would only say it again
        self.ready = not self.found.sweep
        try:
            with _quiet_rng():
                self.run_calls()
        except _Stop:
            pass
        self.ready = self.ready and not self.found.sweep

    cpu_only = staticmethod(_cpu_only)

    def _callables(self) -> dict[str, Callable[..., Any]] | None:
        out = {}
        family = self.family
        vendors = [(f"vendor:{lib}" if lib else "vendor", ref) for lib, ref in family.vendors.entries(self.dialect).items()]
        labels = [(f"vendor_label{':' + lib if lib else ''}", words) for lib, words in family.vendors.labels.items()
                  if callable(words) and lib in family.vendors.entries(self.dialect)]
        words = [(f"words:{k}", v) for k, v in family.words.given().items()]
        passes = [("pass_configs", family.pass_configs)] if not isinstance(family.pass_configs, Mapping) else []
        passes += [("body_modules", family.body_modules_of)] if not isinstance(family.body_modules_of, (list, tuple, type(None))) else []
        for label, ref in (("inputs", family.inputs), ("reference", family.reference), *vendors, *labels,
                           ("flops", family.flops_of), ("bytes_moved", family.bytes_of),
                           ("footprint", family.footprint_of), ("validate", family.refusal_of),
                           ("mma_tiles", family.mma_tiles_of), *passes, *words,
                           *((f"check#{k}", rule.function) for k, rule in enumerate(rules_of(family.check_spec, UserRule))),
                           *((f"bound#{k}", rule.allowed) for k, rule in enumerate(rules_of(family.check_spec, Bound)))):
            if ref is None:
                continue
            try:
                out[label] = family.resolved(ref)
            except Exception as exc:  # noqa: BLE001
                bound = label.startswith("bound")
                self.fail("check" if bound else label, f"{'bound ' if bound else ''}{ref!r} does not import: "
                          f"{type(exc).__name__}: {exc}", "name it as 'module:attribute' beside the suite", exc=exc)
                return None
        return out

    def refused(self, problem: Any, config: Any) -> bool:
        """Whether the suite's ``validate`` refuses ``config`` at ``problem`` (the run skips it, so
        nothing of it is checked); one that raises refuses nothing: ``run_others`` reports it."""
        key = (problem, config)
        if key not in self.refusals:
            function = self.callables.get("validate")
            try:
                self.refusals[key] = function is not None and bool(call_named(function, self.family.named(problem, config, self.dialect)))
            except Exception:  # noqa: BLE001 - reported where validate is called
                self.refusals[key] = False
        return self.refusals[key]

    def kept(self, problem: Any) -> list[Any]:
        """The configs the run builds at ``problem`` (those ``validate`` does not refuse)."""
        return [c for c in self.configs if not self.refused(problem, c)]

    def call(self, label: str, function: Any, values: Mapping[str, Any], positional: Sequence[Any] = ()) -> Any:
        takes = Takes.of(function)
        given_inputs = label.split(":")[0] in ("reference", "vendor", "vendor_label") or label.startswith("bound")
        if takes is not None and takes.too_many(len(positional)):
            self.fail(_label(label, function), f"it takes {len(takes.positional)} positional argument(s), it is given "
                      f"{len(positional)} ({'the inputs' if given_inputs else 'out, ref'})",
                      "take one parameter per tensor inputs() returns" if given_inputs else "take (out, ref, **named)")
            raise _Stop
        try:
            return call_named(function, values, positional)
        except Exception as exc:  # noqa: BLE001 - the suite's code: one line
            if _cpu_only(exc):
                self.note(_label(label, function), f"not run on CPU ({type(exc).__name__}: {exc}); the device run checks it")
                raise _Stop from None
            self.fail(_label(label, function), f"raised {type(exc).__name__}: {exc}", f"make {label.split('#')[0]} run on these arguments", exc=exc)
            raise _Stop from None

    def run_calls(self) -> None:
        values = self.family.named(self.problem, self.config, self.dialect)
        answers = self.family.answer_values(self.problem, self.family.inputs_axes(self.config), self.dialect)
        try:
            func = factories.built(self.body, self.family.named(self.problem, self.config, None)).func
        except Exception as exc:  # noqa: BLE001 - tracing the body failed: the compile would too
            offered = set(values)
            missing = _missing_const(exc)
            hint = did_you_mean(missing, offered) if missing else ""
            self.fail(f"body {factories.factory_name(self.body)}", f"tracing it raised {type(exc).__name__}: {exc}{hint}",
                      "give every name it needs as a size, axis or constant" if missing else "fix the body (tilelang's words above)", exc=exc)
            raise _Stop from None
        self.check_unused(func)
        self.run_others()
        made = self.call("inputs", self.callables["inputs"], {**values, "device": "cpu"})
        if not isinstance(made, (list, tuple)) or not all(hasattr(t, "shape") for t in made):
            self.fail("inputs", f"it returned {type(made).__name__}, not a list of tensors", "return [tensor, ...]: the kernel's leading arguments")
            raise _Stop
        made = list(made)
        elsewhere = sorted({str(t.device) for t in made if getattr(t.device, "type", "cpu") != "cpu"})
        if elsewhere:
            self.note("inputs", f"asked for device 'cpu', it made tensors on {', '.join(elsewhere)}: make them on the device "
                                "argument (each backend passes its own)")
        self.check_input_dtypes(made, func)
        try:
            values = factories.bound_values(func, made, self.problem.values)
        except Exception as exc:  # noqa: BLE001 - the device run would stop here too
            self.fail("inputs", f"{type(exc).__name__}: {exc}", "make each tensor the kernel's shape at these sizes (a sub-byte "
                      "dtype such as int4 packed along its last dimension)", exc=exc)
            raise _Stop from None
        try:
            specs = factories.parameter_specs(func, values)
        except Exception as exc:  # noqa: BLE001 - the device run would stop here too
            self.fail("outputs", f"{type(exc).__name__}: {exc}", "return that argument from inputs()", exc=exc)
            raise _Stop from None
        self.check_input_shapes(made, specs)
        outputs = self.outputs(specs[len(made):])
        rules = self.rules(specs[len(made):])
        if "reference" not in self.callables:
            self.note("reference", "none declared: device items cannot be checked and fail")
            return
        expected = as_list(self.call("reference", self.callables["reference"], answers, made))
        self.check_answers("reference", self.callables["reference"], expected, outputs, specs[len(made):])
        rules = self.given_bounds(rules, expected, made, answers)
        self.check_poison(outputs, expected, rules, specs[len(made):], answers)
        for label in [k for k in self.callables if k.split(":")[0] == "vendor"]:
            with contextlib.suppress(_Stop):
                self.check_vendor(label, made, outputs, expected, rules, specs[len(made):], answers)

    def run_others(self) -> None:
        per_problem = self.family.named(self.problem, None, self.dialect)
        for label in ("flops", "bytes_moved"):
            if label in self.callables:
                with contextlib.suppress(_Stop):
                    got = self.call(label, self.callables[label], per_problem)
                    if not isinstance(got, (int, float)) or isinstance(got, bool):
                        self.fail(label, f"it returned {got!r}, not a number", "return the count as an int")
        for label in ("footprint", "validate", "mma_tiles", "pass_configs", "body_modules"):
            if label in self.callables:
                for config in (self.all_configs if label == "validate" else self.kept(self.problem)):
                    with contextlib.suppress(_Stop):
                        self.call(label, self.callables[label], self.family.named(self.problem, config, self.dialect))


def _missing_const(exc: BaseException) -> str | None:
    text = str(exc)
    for marker in ("constexpr variable `", "missing a required argument: '", "required positional argument: '"):
        if marker in text:
            return text.split(marker, 1)[1].split("`" if "`" in marker else "'", 1)[0]
    return None


@contextlib.contextmanager
def _quiet_rng() -> Any:
    """A fixed seed for the suite's inputs, the caller's random state restored after."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        yield
