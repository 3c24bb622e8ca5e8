"""The preflight at every size the run uses: each problem's inputs, signature, outputs and
reference checked on torch's meta device (nothing allocated), and their memory against the device's.

Contract: ``SizeChecks`` is mixed into the preflight's runner; ``check_size(problem,
device_memory)`` runs the first config ``validate`` keeps at ``problem``; what it needs must fit
``device_memory`` bytes (``memory[problem]``: bytes needed, device bytes).  A call meta cannot
run is a note.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Mapping

from tlbench.harness.sweep_api.callables import call_named

from . import factory as factories
from .preflight_names import Stop, label_of
from .tensors import allocate, as_list

GIB = float(1 << 30)
META_WORDS = ("meta", "Meta", "data-dependent", "item()", "Cannot copy out of meta tensor", "nonzero")


def gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB" if n >= GIB / 100 else f"{n / (1 << 20):.2f} MiB"


def nbytes(tensors: Any) -> int:
    return sum(int(t.numel()) * int(t.element_size()) for t in tensors if hasattr(t, "element_size"))


class MemoryPeak:
    """The most bytes the new tensors of a call hold at once (views and arguments not counted),
    by a TorchFunctionMode (a TorchDispatchMode imports torch's compiler stack: seconds)."""

    def __init__(self) -> None:
        self.now = self.peak = 0
        self.live: dict[int, int] = {}

    def _free(self, key: int) -> None:
        self.now -= self.live.pop(key, 0)

    def _count(self, out: Any, given: set[int]) -> None:
        import torch

        for t in (out if isinstance(out, (list, tuple)) else [out]):
            if isinstance(t, torch.Tensor) and id(t) not in given and id(t) not in self.live and not t._is_view():
                self.live[id(t)] = int(t.numel()) * int(t.element_size())
                self.now += self.live[id(t)]
                self.peak = max(self.peak, self.now)
                weakref.finalize(t, self._free, id(t))

    @contextlib.contextmanager
    def watching(self) -> Any:
        import torch
        from torch.overrides import TorchFunctionMode

        peak = self

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                out = func(*args, **(kwargs or {}))
                given = {id(a) for a in [*args, *(kwargs or {}).values()] if isinstance(a, torch.Tensor)}
                peak._count(out, given)
                return out

        with Mode():
            yield self


def _meta_only(exc: BaseException) -> bool:
    """Whether ``exc`` says torch's meta device cannot run the call (not that the suite is wrong)."""
    text = f"{type(exc).__name__}: {exc}"
    return isinstance(exc, NotImplementedError) or any(w in text for w in META_WORDS)


class SizeChecks:
    def check_size(self, problem: Any, device_memory: int) -> None:
        config = next(iter(self.kept(problem)), None)
        if config is None or problem == self.problem and config == self.config:
            return  # validate refuses every config here (nothing is built), or the smoke run on CPU did it all
        self.at = problem
        try:
            self._check_size(problem, config, device_memory)
        except Stop:
            pass
        finally:
            self.at = None

    def _meta_call(self, label: str, function: Any, values: Mapping[str, Any], positional: Any = ()) -> Any:
        import torch

        try:
            with torch.device("meta"):  # a factory call without device= allocates nothing either
                return call_named(function, values, positional)
        except Exception as exc:  # noqa: BLE001 - the suite's code at this size
            if not self.meta_runs_smoke():  # said once for the dialect: no size above the smoke one is checked so
                self.at = None  # said once for the whole dialect: the note names the smoke problem
                self.note("sizes", f"inputs or the reference do not run on torch's meta device ({self.meta_error}): "
                          "each size is traced; its shapes, dtypes and memory are left to the device run")
                raise Stop from None  # check_size leaves self.at None
            if _meta_only(exc) or self.cpu_only(exc):
                self.note(label_of(label, function), f"not run at {self.sizes_words(self.at)} on torch's meta device "
                          f"({type(exc).__name__}: {exc}); the device run checks that size")
                raise Stop from None
            self.fail(label_of(label, function), f"at {self.sizes_words(self.at)} it raised {type(exc).__name__}: {exc}",
                      f"make {label} run at every size the scope runs", exc=exc)
            raise Stop from None

    def meta_runs_smoke(self) -> bool:
        """Whether inputs and the reference run on torch's meta device at the smoke size, where they
        ran on CPU: only then is an exception at another size the suite's, not the meta device's."""
        if self.meta_smoke is None:
            import torch

            values = self.family.named(self.problem, self.config, self.dialect)
            try:
                with torch.device("meta"):
                    made = call_named(self.callables["inputs"], {**values, "device": "meta"})
                    if "reference" in self.callables:
                        answers = self.family.answer_values(self.problem, self.family.inputs_axes(self.config), self.dialect)
                        call_named(self.callables["reference"], answers, list(made))
                self.meta_smoke = True
            except Exception as exc:  # noqa: BLE001 - the meta device cannot run this suite's code
                self.meta_smoke, self.meta_error = False, f"{type(exc).__name__}: {exc}"
        return self.meta_smoke

    def sizes_words(self, problem: Any) -> str:
        return ", ".join(f"{k}={v}" for k, v in problem.values.items())

    def _check_size(self, problem: Any, config: Any, device_memory: int) -> None:
        try:
            func = factories.built(self.body, self.family.named(problem, config, None)).func
        except Exception as exc:  # noqa: BLE001 - the build at this size would raise too
            self.fail(f"body {factories.factory_name(self.body)}", f"tracing it at {self.sizes_words(problem)} raised "
                      f"{type(exc).__name__}: {exc}", "make the body build at every size the scope runs", exc=exc)
            raise Stop from None
        values = self.family.named(problem, config, self.dialect)
        made = self._meta_call("inputs", self.callables["inputs"], {**values, "device": "meta"})
        if not isinstance(made, (list, tuple)) or not all(hasattr(t, "shape") for t in made):
            self.fail("inputs", f"at {self.sizes_words(problem)} it returned {type(made).__name__}, not a list of tensors",
                      "return [tensor, ...]: the kernel's leading arguments")
            raise Stop
        made = list(made)
        self.check_input_dtypes(made, func)
        try:
            bound = factories.bound_values(func, made, problem.values)
            specs = factories.parameter_specs(func, bound)
        except Exception as exc:  # noqa: BLE001 - the device run would stop here too
            self.fail("inputs", f"at {self.sizes_words(problem)}: {type(exc).__name__}: {exc}",
                      "make each tensor the kernel's shape at every size", exc=exc)
            raise Stop from None
        self.check_input_shapes(made, specs)
        self.check_not_empty(specs[len(made):], problem)
        outputs = allocate(specs[len(made):], "meta")
        inputs_bytes, outputs_bytes = nbytes(made), nbytes(outputs)
        if inputs_bytes + outputs_bytes > device_memory:
            self.fail(label_of("inputs", self.callables["inputs"]), f"at {self.sizes_words(problem)} the inputs ({gib(inputs_bytes)}) and outputs ({gib(outputs_bytes)}) "
                      f"need more than the device's {gib(device_memory)}", "leave this size out, or give --tlbench-device-memory "
                      "the memory of the device it runs on")
            raise Stop
        reference = self.callables.get("reference")
        if reference is None:
            return
        answers_values = self.family.answer_values(problem, self.family.inputs_axes(config), self.dialect)
        with MemoryPeak().watching() as peak:
            expected = as_list(self._meta_call("reference", reference, answers_values, made))
        self.check_answers("reference", reference, expected, outputs, specs[len(made):])
        need = inputs_bytes + outputs_bytes + peak.peak
        self.memory[problem] = (need, device_memory)
        if need > device_memory:
            self.fail(label_of("reference", reference), f"at {self.sizes_words(problem)} it needs {gib(peak.peak)} for the tensors it "
                      f"makes, beside the inputs ({gib(inputs_bytes)}) and outputs ({gib(outputs_bytes)}): {gib(need)}, more "
                      f"than the device's {gib(device_memory)}",
                      "compute the reference in pieces (a loop over rows or blocks), or give --tlbench-device-memory "
                      "the memory of the device it runs on")
