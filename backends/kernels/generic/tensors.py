"""The tensors of one generic kernel run: the user's inputs, the outputs tlbench allocates, the check.

Contract: ``KernelInputs`` holds the kernel's call arguments in parameter order: the ones the
suite's ``inputs`` made, then one fresh tensor per remaining buffer parameter of the kernel
(its outputs: shape and dtype from the PrimFunc).  ``outputs`` is an object whose
``fill_(value)`` fills every output (the backend poisons them with NaN before a checked run,
so a kernel that accumulates into its outputs must clear them itself, e.g. with a first
``T.Kernel`` that zeroes them: that launch is then part of every timed call).
``compare(outputs, expected, rtol, atol)`` is the check: every element within
``atol + rtol * |expected|`` in float64, NaN never passes.  torch is imported here only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from tlbench.harness.core.cases import CheckResult


def torch_dtype(name: str) -> Any:
    import torch

    aliases = {"float": "float32", "half": "float16", "bool": "bool"}
    dtype = getattr(torch, aliases.get(name, name), None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"no torch dtype for kernel parameter dtype {name!r}")
    return dtype


def allocate(specs: Sequence[tuple[str, tuple[int, ...], str]], device: Any) -> list[Any]:
    import torch

    return [torch.empty(shape, dtype=torch_dtype(dtype), device=device) for _, shape, dtype in specs]


class OutputSet:
    """The kernel's outputs as one thing the backend can poison (``fill_``)."""

    def __init__(self, tensors: Sequence[Any]) -> None:
        self.tensors = list(tensors)

    def fill_(self, value: float) -> "OutputSet":
        for tensor in self.tensors:
            tensor.fill_(value)
        return self


@dataclass
class KernelInputs:
    args: list[Any]
    n_inputs: int  # how many of ``args`` the suite's inputs() made; the rest are outputs
    expected: Any = field(default=None, repr=False)  # the reference's answer, computed once

    @property
    def inputs(self) -> list[Any]:
        return self.args[: self.n_inputs]

    @property
    def outputs(self) -> OutputSet:
        return OutputSet(self.args[self.n_inputs:])

    def write_outputs(self, values: Any) -> None:
        """Copy a callable's returned output(s) (the vendor item's) into the kernel's outputs."""
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        outputs = self.outputs.tensors
        if len(values) != len(outputs):
            raise ValueError(f"the vendor call returned {len(values)} tensor(s); the kernel has {len(outputs)} output(s)")
        for out, value in zip(outputs, values):
            out.copy_(value)


def compare(outputs: Sequence[Any], expected: Any, rtol: float, atol: float) -> CheckResult:
    import torch

    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    if len(expected) != len(outputs):
        return CheckResult(False, float("nan"), float("nan"), 0, 0, rtol, atol,
                           f"the reference returned {len(expected)} tensor(s) for {len(outputs)} output(s)")
    worst_abs = worst_rel = 0.0
    mismatched = total = 0
    details = []
    for k, (out, ref) in enumerate(zip(outputs, expected)):
        ref = torch.as_tensor(ref, device=out.device)
        if tuple(ref.shape) != tuple(out.shape):
            ref = ref.reshape(out.shape) if ref.numel() == out.numel() else ref
        if tuple(ref.shape) != tuple(out.shape):
            return CheckResult(False, float("nan"), float("nan"), out.numel(), out.numel(), rtol, atol,
                               f"output {k} has shape {tuple(out.shape)}, the reference {tuple(ref.shape)}")
        got, want = out.double(), ref.double()
        err = (got - want).abs()
        bad = ~(err <= atol + rtol * want.abs())  # NaN compares False: never passes
        count = int(bad.sum())
        finite = torch.isfinite(err)
        if bool(finite.any()):
            worst_abs = max(worst_abs, float(err[finite].max()))
            worst_rel = max(worst_rel, float((err[finite] / want.abs()[finite].clamp_min(1e-30)).max()))
        if not bool(finite.all()):
            worst_abs = float("nan")
        if count:
            details.append(f"output {k}: {count} of {out.numel()} outside atol {atol} + rtol {rtol} * |ref|")
        mismatched += count
        total += out.numel()
    return CheckResult(mismatched == 0, worst_abs, worst_rel, mismatched, total, rtol, atol, "; ".join(details))
