"""Each built-in check rule's judging of one output against its reference, with torch.

Contract: ``judge(rule, out, ref) -> Verdict`` for every built-in rule of
harness/sweep_api/rules.py; every rule fails an element that still holds its poison.
"""

from __future__ import annotations

from typing import Any

from .output_errors import Verdict, aside, as_float, errors, step_distance, steps_would_accept
from ...output_poison import poisoned
from tlbench.harness.sweep_api.rules import MANY_STEPS


def _tolerance(rule: Any, out: Any, ref: Any) -> Verdict:
    e = errors(as_float(out), ref)
    held = poisoned(out).reshape(e.err.shape)
    bad = ~(e.err <= rule.atol + rule.rtol * e.want.abs()) | e.non_finite | held
    count = int(bad.sum())
    detail = (f"{count} of {out.numel()} outside atol {rule.atol:g} + rtol {rule.rtol:g} * |ref|"
              + aside(e.non_finite_count, int(held.sum())) + steps_would_accept(out, ref, bad)) if count else ""
    return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


def _exact(rule: Any, out: Any, ref: Any) -> Verdict:
    import torch

    held = poisoned(out)
    if out.dtype == torch.bool:
        got, want = out.view(torch.uint8).long(), ref.bool().long()
    elif out.dtype.is_floating_point:
        got, want = as_float(out).double(), ref.to(out.dtype).double() if ref.dtype != out.dtype else as_float(ref).double()
    else:
        got, want = out.long(), ref.long() if not ref.dtype.is_floating_point else ref.round().long()
    bad = ~(got == want.reshape(got.shape)) | held
    count = int(bad.sum())
    e = errors(got, want)
    detail = f"{count} of {out.numel()} differ from the reference" + aside(e.non_finite_count, int(held.sum())) if count else ""
    return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


def _steps(rule: Any, out: Any, ref: Any) -> Verdict:
    distance, non_finite = step_distance(out, ref)
    bad = (distance > rule.k) | non_finite  # the largest finite value is one step from infinity: overflow fails
    count = int(bad.sum())
    e = errors(as_float(out), ref)
    worst_steps = int(distance[~non_finite].max()) if bool((~non_finite).any()) else -1
    detail = ""
    if count:
        detail = f"{count} of {out.numel()} more than {rule.k} representable {out.dtype} value(s) from the reference"
        detail += f", worst {worst_steps} steps" if worst_steps >= 0 else ""
        detail += aside(int(non_finite.sum()), int(poisoned(out).sum()))
        if worst_steps >= max(MANY_STEPS, 2 * rule.k + 1):  # an fp32 sum in another order, rounded: several steps off
            detail += "; a reduction summed in another order than the reference's lands this far: judge it with similarity()"
    return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, int(non_finite.sum()))


def _similarity(rule: Any, out: Any, ref: Any) -> Verdict:
    x, y = as_float(out).double().reshape(-1), ref.double().reshape(-1)
    e = errors(x, y)
    held = int(poisoned(out).sum())
    if rule.min_cosine is not None:
        norms = float(x.norm() * y.norm())
        value = float((x * y).sum()) / norms if norms > 0 else (1.0 if float(x.abs().sum() + y.abs().sum()) == 0 else 0.0)
        ok = value >= rule.min_cosine and held == 0
        detail = "" if ok else f"cosine {value:.6g} below {rule.min_cosine:g}"
    else:
        denominator = float((x * x + y * y).sum())
        value = 0.0 if denominator == 0 else 1.0 - 2.0 * float((x * y).sum()) / denominator
        ok = value <= rule.max_diff and held == 0
        detail = "" if ok else f"diff 1 - 2x.y/(x.x+y.y) = {value:.6g} above {rule.max_diff:g}"
    if not ok:
        detail += aside(e.non_finite_count, held)
    return Verdict(ok, 0 if ok else out.numel(), out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


def _mismatch(rule: Any, out: Any, ref: Any) -> Verdict:
    e = errors(as_float(out), ref)
    count = int((~(e.err <= rule.atol + rule.rtol * e.want.abs()) | e.non_finite).sum())
    held = int(poisoned(out).sum())
    ok = count <= rule.fraction * out.numel() and held == 0
    allowed = ("more than" if count > rule.fraction * out.numel() else "within") + f" the {rule.fraction:g} allowed"
    detail = "" if ok else (f"{count} of {out.numel()} ({count / max(out.numel(), 1):.3g}) outside atol {rule.atol:g} + "
                            f"rtol {rule.rtol:g} * |ref|, {allowed}" + (", but none may hold the poison" if held else "")
                            + aside(e.non_finite_count, held))
    return Verdict(ok, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


def _within(rule: Any, out: Any, ref: Any) -> Verdict:
    import torch

    e = errors(as_float(out), ref)
    allowed = torch.as_tensor(rule.allowed, device=e.err.device).double()
    if allowed.numel() > 1:  # as large as the output; a spot check judges a prefix of it
        allowed = allowed.reshape(-1)[: e.err.numel()].reshape(e.err.shape)
    held = poisoned(out).reshape(e.err.shape)
    count = int((~(e.err <= allowed) | e.non_finite | held).sum())
    detail = f"{count} of {out.numel()} outside the bound {rule.words}" + aside(e.non_finite_count, int(held.sum())) if count else ""
    return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


JUDGES = {"Tolerance": _tolerance, "Exact": _exact, "Steps": _steps, "Similarity": _similarity, "Mismatch": _mismatch,
          "Within": _within}


def judge(rule: Any, out: Any, ref: Any) -> Verdict:
    return JUDGES[type(rule).__name__](rule, out, ref)
