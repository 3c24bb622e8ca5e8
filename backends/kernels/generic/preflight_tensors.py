"""The preflight's tensor checks: what a suite's calls return, against the kernel's parameters
and the check rules (backends/kernels/generic/preflight.py runs them, after tracing the body).

Contract: ``TensorChecks`` is mixed into the preflight's runner (``fail``, ``call``, which raises
``Stop`` after reporting).  A built-in rule judges the first ``SPOT`` elements; a user's check
gets the whole tensors.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...dtype_sizes import element_bits, storage_shape
from ...output_poison import poison_tensor
from tlbench.harness.sweep_api.rules import Bound, UserRule, rule_for, spec_problems
from .preflight_names import Stop, label_of
from .tensors import allocate, as_list, expected_shape_problem, packed_input_problem, torch_dtype
from tlbench.harness.sweep_api.vendors import OUT, out_value, takes_out

SPOT = 1 << 16  # elements a built-in rule judges in the preflight: enough to tell, cheap at any smoke size


class TensorChecks:
    def check_input_dtypes(self, made: list[Any], func: Any) -> None:
        """Before any shape is bound: the count, and each tensor's dtype against its parameter's
        (a sub-byte parameter - int4, fp4 - is held packed in an integer tensor)."""
        params = [func.buffer_map.get(p) for p in func.params]
        if len(made) > len(params):
            self.fail("inputs", f"it returned {len(made)} tensors, the kernel takes {len(params)} parameters "
                      f"({', '.join(str(b.name) if b is not None else str(p.name) for b, p in zip(params, func.params))})",
                      "return only the kernel's leading (input) arguments")
            raise Stop
        for k, (tensor, buffer) in enumerate(zip(made, params)):
            if buffer is None:
                continue
            name, dtype = str(buffer.name), str(buffer.dtype)
            if element_bits(dtype) < 8:
                problem = packed_input_problem(k, tensor, name, dtype)
                if problem:
                    self.fail("inputs", problem, f"pack {dtype} values {8 // element_bits(dtype)} to a byte along the last "
                              "dimension into an int8 or uint8 tensor")
                    raise Stop  # its shape cannot be read either
                continue
            try:
                want = torch_dtype(dtype)
            except ValueError:
                continue
            if getattr(tensor, "dtype", None) != want:
                self.fail("inputs", f"tensor {k} ({name}) is {tensor.dtype}, the kernel's {name} is {dtype}",
                          f"make it .to({want})")

    def check_input_shapes(self, made: list[Any], specs: list[tuple[str, tuple[int, ...], str]]) -> None:
        for k, (tensor, (name, shape, dtype)) in enumerate(zip(made, specs)):
            want = storage_shape(shape, dtype, getattr(tensor, "element_size", lambda: 1)()) if shape else ()
            if shape and tuple(tensor.shape) != want:
                packed = f" ({dtype} packed along the last dimension: {want})" if want != tuple(shape) else ""
                self.fail("inputs", f"tensor {k} ({name}) has shape {tuple(tensor.shape)}, the kernel's {name} {tuple(shape)}{packed}",
                          "make it the kernel's shape at these sizes")

    def outputs(self, specs: list[tuple[str, tuple[int, ...], str]]) -> list[Any]:
        self.check_not_empty(specs)
        try:
            tensors = allocate(specs, "cpu")
        except ValueError as exc:
            self.fail("outputs", str(exc), "return that output from inputs()")
            raise Stop from None
        return [poison_tensor(t) for t in tensors]

    def check_not_empty(self, specs: list[tuple[str, tuple[int, ...], str]], problem: Any = None) -> None:
        """An output with no element is never written nor judged: the sizes are to blame (a
        size of 0), not the check rule."""
        problem = problem or self.problem
        for name, shape, _ in specs:
            if shape and any(isinstance(d, int) and d <= 0 for d in shape):
                zero = [f"{k}={v}" for k, v in problem.values.items() if isinstance(v, int) and not isinstance(v, bool) and v <= 0]
                given = ", ".join(zero) or ", ".join(f"{k}={v}" for k, v in problem.values.items())
                self.fail(f"size {zero[0].split('=')[0]!r}" if zero else "sizes",
                          f"at {given} the kernel's output {name} has shape {tuple(shape)}: no element to write or check",
                          "give every size a value above 0 (a problem the kernel runs on)", problem, per_problem=True)
                raise Stop

    def rules(self, specs: list[tuple[str, tuple[int, ...], str]]) -> list[Any]:
        names = [s[0] for s in specs]
        for words in spec_problems(self.family.check_spec, names):
            self.fail("check", words, "name outputs by index (0, 1, ...) or parameter name")
        rules = [rule_for(self.family.check_spec, k, name, dtype, self.family.tolerance) for k, (name, _, dtype) in enumerate(specs)]
        for (name, _, dtype), rule in zip(specs, rules):
            why = rule.fits(dtype)
            if why:
                self.fail("check", f"output {name}: {why}", "choose a rule that fits the output's dtype (exact() for integers)")
        return rules

    def check_answers(self, label: str, function: Any, answers: list[Any], outputs: list[Any],
                      specs: list[tuple[str, tuple[int, ...], str]]) -> None:
        if len(answers) != len(outputs):
            self.fail(label_of(label, function), f"it returned {len(answers)} tensor(s), the kernel has {len(outputs)} output(s) "
                      f"({', '.join(s[0] for s in specs) or 'none'})", "return one tensor per output, in parameter order")
            raise Stop
        for k, (answer, out, spec) in enumerate(zip(answers, outputs, specs)):
            problem = expected_shape_problem(out, answer, k, spec[0])
            if problem:
                self.fail(label_of(label, function), problem, "return each output at the kernel's shape")
                raise Stop

    def given_bounds(self, rules: list[Any], expected: list[Any], made: list[Any], answers: Mapping[str, Any]) -> list[Any]:
        """Each ``bound`` rule with its allowed errors computed from the reference and the inputs."""
        bounds = rules_of(self.family.check_spec, Bound)
        out = []
        for rule, ref in zip(rules, expected):
            if isinstance(rule, Bound):
                label = f"bound#{bounds.index(rule)}"
                rule = rule.given(self.call(label, self.callables[label], answers, (ref, *made)))
            out.append(rule)
        return out

    def check_poison(self, outputs: list[Any], expected: list[Any], rules: list[Any],
                     specs: list[tuple[str, tuple[int, ...], str]], values: Mapping[str, Any]) -> None:
        """Each rule must reject its output while it still holds the poison (never written)."""
        import torch

        for out, ref, rule, (name, _, dtype) in zip(outputs, expected, rules, specs):
            ref = torch.as_tensor(ref).to(out.device).reshape(out.shape)
            if isinstance(rule, UserRule):
                verdict_ok = self.call("check", rule.function, values, (out, ref)) is None
            else:
                try:
                    verdict_ok = rule.judge(*spot(out, ref)).ok
                except Exception as exc:  # noqa: BLE001 - the rule cannot judge this output
                    self.fail("check", f"output {name} ({dtype}) by {rule.words}: {type(exc).__name__}: {exc}",
                              "choose a rule that fits the output's dtype")
                    continue
            if verdict_ok:
                self.fail("check", f"output {name} ({dtype}) by {rule.words} passes while it still holds the poison "
                          "(an output the kernel never wrote would pass)", "choose a rule that compares every element")

    def check_vendor(self, label: str, made: list[Any], outputs: list[Any], expected: list[Any], rules: list[Any],
                     specs: list[tuple[str, tuple[int, ...], str]], values: Mapping[str, Any]) -> None:
        import torch

        vendor = self.callables[label]
        if takes_out(vendor):  # it writes the outputs in place: poisoned copies, judged after the call
            written = [out.clone() for out in outputs]
            self.call(label, vendor, {**values, OUT: out_value(written)}, made)
            answers = written
        else:
            answers = as_list(self.call(label, vendor, values, made))
        self.check_answers(label, vendor, answers, outputs, specs)
        if not self.family.vendor_check:
            return
        for out, answer, ref, rule, (name, _, _) in zip(outputs, answers, expected, rules, specs):
            out.copy_(torch.as_tensor(answer).to(out.device).reshape(out.shape))
            ref = torch.as_tensor(ref).to(out.device).reshape(out.shape)
            ok = self.call("check", rule.function, values, (out, ref)) is None if isinstance(rule, UserRule) else rule.judge(*spot(out, ref)).ok
            if not ok:
                words = "" if isinstance(rule, UserRule) else rule.judge(*spot(out, ref)).detail
                self.fail(label_of(label, vendor), f"its output {name} fails {rule.words} against the reference on CPU: {words}",
                          "pass vendor_check=False if it is a speed reference only, else fix the vendor call or the rule")


def spot(out: Any, ref: Any) -> tuple[Any, Any]:
    """The first ``SPOT`` elements of an output and its reference (a user's check gets them whole)."""
    return out.reshape(-1)[:SPOT], ref.reshape(-1)[:SPOT]


def rules_of(spec: Any, kind: type) -> list[Any]:
    """The rules of type ``kind`` in a ``check=`` value (one rule, a list or a dict of them)."""
    values = spec.values() if isinstance(spec, dict) else spec if isinstance(spec, list) else [spec] if spec is not None else []
    return [r for r in values if isinstance(r, kind)]
