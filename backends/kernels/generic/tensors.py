"""The tensors of one generic kernel run: the user's inputs, the outputs tlbench allocates, the check.

Contract: ``KernelInputs`` holds the kernel's call arguments in parameter order: those ``inputs``
made, then one fresh tensor per remaining parameter (``allocate``; a sub-byte dtype packed along
the last dimension); its ``outputs`` can be poisoned (backends/output_poison.py).  ``judge``
judges each output by its rule into one ``CheckResult`` naming every rule and why any failed.
torch is imported here only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from tlbench.harness.core.cases import CheckResult

from ...output_poison import poison_tensor
from .output_errors import Verdict

# tilelang dtype names torch spells otherwise (tilelang's own ``dtype.as_torch`` is asked first)
ALIASES = {"float": "float32", "half": "float16", "float8_e4m3": "float8_e4m3fn", "e4m3_float8": "float8_e4m3fn",
           "e5m2_float8": "float8_e5m2", "e4m3fnuz_float8": "float8_e4m3fnuz", "int4": "int8", "uint4": "uint8",
           "float4_e2m1fn": "float4_e2m1fn_x2"}  # sub-byte dtypes: held packed (allocate)


def torch_dtype(name: str) -> Any:
    import torch

    dtype = getattr(torch, ALIASES.get(name, name), None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"kernel parameter dtype {name!r} has no torch dtype to allocate it with: return that "
                         "argument from inputs() instead")
    return dtype


def allocate(specs: Sequence[tuple[str, tuple[int, ...], str]], device: Any) -> list[Any]:
    """One empty tensor per (name, shape, dtype); a sub-byte dtype packed along the last dimension
    (an int4 ``(M, N)`` output is an int8 ``(M, N / 2)``: backends/dtype_sizes.py)."""
    import torch

    from ...dtype_sizes import storage_shape

    helds = [(shape, dtype, torch_dtype(dtype)) for _, shape, dtype in specs]
    return [torch.empty(storage_shape(shape, dtype, held.itemsize), dtype=held, device=device) for shape, dtype, held in helds]


def packed_input_problem(k: int, tensor: Any, name: str, dtype: str) -> str | None:
    """Why ``tensor`` (input ``k``) cannot hold parameter ``name`` of sub-byte ``dtype`` packed
    (None: it can): it must be an integer tensor, or torch's packed ``*_x2`` dtype."""
    held = getattr(tensor, "dtype", None)
    if held is None or held.is_complex or str(held) == "torch.bool" or (held.is_floating_point and not str(held).endswith("_x2")):
        return f"tensor {k} ({name}) is {held}; the kernel's {name} is {dtype}, read packed from an integer tensor's bytes"
    return None


class OutputSet:
    """The kernel's outputs as one thing the backend can poison."""

    def __init__(self, tensors: Sequence[Any]) -> None:
        self.tensors = list(tensors)

    def poison_(self) -> "OutputSet":
        for tensor in self.tensors:
            poison_tensor(tensor)
        return self

    def fill_(self, value: float) -> "OutputSet":
        """A caller that asks for one value gets each dtype's own poison (NaN does not fit an
        integer or bool output)."""
        return self.poison_()


@dataclass
class KernelInputs:
    args: list[Any]
    n_inputs: int  # how many of ``args`` the suite's inputs() made; the rest are outputs
    expected: Any = field(default=None, repr=False)  # the reference's answer, computed once
    output_names: tuple[str, ...] = ()
    output_dtypes: tuple[str, ...] = ()  # the kernel's dtype name of each output
    axes: dict[str, Any] = field(default_factory=dict)  # the config's axes the inputs were made from

    @property
    def inputs(self) -> list[Any]:
        return self.args[: self.n_inputs]

    @property
    def input_dtypes(self) -> tuple[str, ...]:
        """The dtype of each tensor inputs() made, as torch names it (``float16``,
        ``float8_e4m3fn``); anything inputs() returned that is not a tensor is left out."""
        return tuple(str(t.dtype).removeprefix("torch.") for t in self.inputs if hasattr(t, "dtype") and hasattr(t, "shape"))

    @property
    def outputs(self) -> OutputSet:
        return OutputSet(self.args[self.n_inputs:])

    def write_outputs(self, values: Any) -> None:
        """Copy a callable's returned output(s) (the vendor item's) into the kernel's outputs."""
        values = as_list(values)
        outputs = self.outputs.tensors
        if len(values) != len(outputs):
            raise ValueError(f"the vendor call returned {len(values)} tensor(s); the kernel has {len(outputs)} output(s)")
        for out, value in zip(outputs, values):
            out.copy_(value.reshape(out.shape) if hasattr(value, "reshape") and value.numel() == out.numel() else value)


def as_list(values: Any) -> list[Any]:
    return list(values) if isinstance(values, (list, tuple)) else [values]


def expected_shape_problem(out: Any, ref: Any, k: int, name: str) -> str | None:
    """Why ``ref`` cannot be compared with output ``k`` (None: it can, reshaped if need be)."""
    if not hasattr(ref, "shape"):
        return f"the reference's answer for output {k} ({name}) is a {type(ref).__name__}, not a tensor"
    if tuple(ref.shape) != tuple(out.shape) and ref.numel() != out.numel():
        return f"output {k} ({name}) has shape {tuple(out.shape)}, the reference {tuple(ref.shape)}"
    return None


def judge(outputs: Sequence[Any], expected: Any, rules: Sequence[Any], names: Sequence[str],
          call_user: Any = None) -> CheckResult:
    """Each output by its rule.  ``call_user(rule, out, ref)`` runs a user rule (its named
    arguments are the caller's); it returns None or the reason."""
    import torch

    expected = as_list(expected)
    words = "; ".join(f"{n}: {r.words}" for n, r in zip(names, rules))
    first = rules[0] if rules else None
    rtol, atol = getattr(first, "rtol", float("nan")), getattr(first, "atol", float("nan"))
    if len(expected) != len(outputs):
        return CheckResult(False, float("nan"), float("nan"), 0, 0, rtol, atol,
                           f"the reference returned {len(expected)} tensor(s) for {len(outputs)} output(s)", rule=words)
    verdicts: list[Any] = []
    details = []
    for k, (out, ref, rule, name) in enumerate(zip(outputs, expected, rules, names)):
        ref = torch.as_tensor(ref, device=out.device)
        problem = expected_shape_problem(out, ref, k, name)
        if problem:
            return CheckResult(False, float("nan"), float("nan"), out.numel(), out.numel(), rtol, atol, problem, rule=words)
        ref = ref.reshape(out.shape)
        if hasattr(rule, "judge"):
            verdict = rule.judge(out, ref)
        else:
            reason = call_user(rule, out, ref)
            verdict = Verdict(reason is None, 0 if reason is None else out.numel(), out.numel(), float("nan"),
                              float("nan"), "" if reason is None else str(reason))
        verdicts.append(verdict)
        if not verdict.ok:
            details.append(f"output {k} ({name}) by {rule.words}: {verdict.detail or 'failed'}")
    return CheckResult(not details, _largest([v.max_abs_err for v in verdicts]), _largest([v.max_rel_err for v in verdicts]),
                       sum(v.mismatched for v in verdicts), sum(v.total for v in verdicts), rtol, atol,
                       "; ".join(details), rule=words, non_finite=sum(v.non_finite for v in verdicts))


def _largest(errs: Sequence[float]) -> float:
    """The largest of the outputs' finite-element errors; NaN when no output measured one (every
    element non-finite, or judged by a user rule, which measures none)."""
    measured = [e for e in errs if e == e]
    return max(measured) if measured else float("nan")
