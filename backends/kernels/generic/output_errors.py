"""How far one output is from its reference, element by element: what every check rule reports.

Contract: ``Verdict`` is what a rule's ``judge`` returns.  ``errors(out, ref)`` measures in
float64: ``err`` is ``|out - ref|`` (0 where both hold the same infinity), ``non_finite`` masks
NaN or infinite elements that are not the same infinity (NaN never matches: it is the poison).
``step_distance`` counts representable values of the output's dtype.  torch imported inside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tlbench.harness.sweep_api.rules import MANY_STEPS, STEP_DTYPES
from ...output_poison import poisoned


@dataclass(frozen=True)
class Verdict:
    ok: bool
    mismatched: int
    total: int
    max_abs_err: float  # over the elements finite on both sides
    max_rel_err: float
    detail: str = ""  # why it failed, in words (empty when ok)
    non_finite: int = 0  # NaN / infinity not matching the reference's (see the module docstring)


@dataclass(frozen=True)
class Errors:
    err: Any  # |out - ref| in float64; 0 where both are the same infinity
    want: Any  # the reference in float64
    non_finite: Any  # mask: NaN or infinity on either side, not the same infinity
    max_abs: float
    max_rel: float

    @property
    def non_finite_count(self) -> int:
        return int(self.non_finite.sum())


def errors(out: Any, ref: Any) -> Errors:
    """``out`` against ``ref`` (same number of elements), both read as float64."""
    import torch

    got, want = out.double(), ref.double().reshape(out.shape)
    both_finite = torch.isfinite(got) & torch.isfinite(want)
    same_infinity = torch.isinf(got) & (got == want)
    err = torch.where(same_infinity, torch.zeros_like(got), (got - want).abs())
    if bool(both_finite.any()):
        finite_err = err[both_finite]
        max_abs = float(finite_err.max())
        max_rel = float((finite_err / want.abs()[both_finite].clamp_min(1e-30)).max())
    else:
        max_abs = max_rel = float("nan")
    return Errors(err, want, ~both_finite & ~same_infinity, max_abs, max_rel)


def aside(non_finite: int, held: int) -> str:
    """`` (3 non-finite; 2 still hold the poison value: never written?)``, or "" when both are 0."""
    parts = [f"{non_finite} non-finite"] if non_finite else []
    if held:
        parts.append(f"{held} still hold the poison value: never written?")
    return f" ({'; '.join(parts)})" if parts else ""


def as_float(out: Any) -> Any:
    """A one-byte float (fp8) widened to float32, so torch can subtract it; others as they are."""
    return out.float() if out.element_size() == 1 else out


def ordered(t: Any) -> Any:
    """Each element's position on its dtype's number line, as int64: adjacent representable
    values differ by 1 (sign-magnitude bits folded so that -0 and +0 are both 0)."""
    import torch

    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    raw = t.contiguous().view(bits).long()
    width = 8 * t.element_size()
    magnitude = raw & ((1 << (width - 1)) - 1)
    return torch.where((raw >> (width - 1)) & 1 != 0, -magnitude, magnitude)


def step_distance(out: Any, ref: Any) -> tuple[Any, Any]:
    """How many representable values of the output's dtype each element is from the reference
    rounded to that dtype, and the mask of elements non-finite against it."""
    rounded = (ref.to(out.dtype) if ref.dtype != out.dtype else ref).reshape(out.shape)
    return (ordered(out) - ordered(rounded)).abs(), errors(as_float(out), as_float(rounded)).non_finite


def steps_would_accept(out: Any, ref: Any, bad: Any) -> str:
    """For a tolerance that failed ``bad`` elements: how many ``steps(1)`` would accept, and the
    ``steps(k)`` that accepts them all (up to ``MANY_STEPS``; past it, ``similarity()``)."""
    if str(out.dtype).removeprefix("torch.") not in STEP_DTYPES:
        return ""
    distance, non_finite = step_distance(out, ref)
    failing = distance[bad.reshape(distance.shape) & ~non_finite & ~poisoned(out).reshape(distance.shape)]
    if not failing.numel():
        return ""
    within_one, worst, count = int((failing <= 1).sum()), int(failing.max()), int(bad.sum())
    every = within_one < count and failing.numel() == count and worst <= MANY_STEPS
    if not within_one and not every:
        return ""  # no steps() rule near: nothing to suggest
    hint = f"; steps(1) would accept {within_one} of these {count}" + (f", steps({worst}) all" if every else "")
    if worst > MANY_STEPS:  # rounding-level misses with a tail several steps off: an accumulation in another order
        hint += (f"; the rest are up to {worst} steps off, as a reduction summed in another order than the "
                 "reference's lands: judge it with similarity()")
    return hint
