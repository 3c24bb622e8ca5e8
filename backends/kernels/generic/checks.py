"""Rules that judge one kernel output against its reference: the ``check=`` of ``kernel_sweep``.

Contract: each rule is a frozen value with ``words`` (how records and reports name it, e.g.
``steps(1)``), ``fits(dtype_name) -> None | why not`` (asked by the preflight: a rule that
cannot judge an output of that dtype is refused before anything compiles) and
``judge(out, ref) -> Verdict`` (torch tensors: ``out`` the kernel's output, ``ref`` the
reference's answer for it, same number of elements).  Every rule fails an element that still
holds its poison (backends/output_poison.py: NaN for floats, a sentinel for integers, a
non-boolean byte for bool), so an output the kernel never wrote never passes.  Every verdict
(backends/kernels/generic/output_errors.py) gives the largest error over the elements finite on
both sides and counts the non-finite ones (NaN or infinity where the reference holds no such
value: the same infinity on both sides matches), and its detail says how many of each of these
two kinds it failed: ``(3 non-finite; 2 still hold the poison value: never written?)``.
- ``tolerance(rtol=1e-2, atol=1e-2)``: every element within ``atol + rtol * |ref|`` (float64);
  a non-finite element never is (``mismatch`` and ``bound`` alike); its failure says how many
  of the failing elements ``steps(1)`` would accept.
- ``exact()``: equal values (integers and bool compared as integers, bool byte by byte; a
  float reference is rounded to the output's dtype first).  The default for integer and
  bool outputs.
- ``steps(k)``: within ``k`` representable values of the output's dtype (fp8 e4m3 / e5m2 and
  their ``fnuz`` forms, fp16, bf16, fp32, fp64) of the reference rounded to that dtype: a tie
  the kernel rounds the other way is one step off; an infinity the rounded reference does not
  hold fails (overflow is not one step above the largest finite value), as NaN does; a failure
  by ``MANY_STEPS`` or more names ``similarity()`` (a reduction summed in another order).
- ``similarity(max_diff=None, min_cosine=None)``: the whole output against the whole reference:
  ``1 - 2 x.y / (x.x + y.y)`` at most ``max_diff`` (the ``calc_diff`` of tilelang's fp8
  examples; 1e-3 when neither is given), or the cosine at least ``min_cosine``.
- ``mismatch(fraction, rtol=1e-2, atol=1e-2)``: at most ``fraction`` of the elements outside the
  tolerance (never an element that holds the poison).
- ``bound(allowed, words="")``: every element within ``allowed(ref, *inputs, **named)``, a
  tensor of allowed absolute errors (or one number) as large as the output: a tolerance
  that depends on the inputs (flash attention's ``atol + rtol |ref| + 2u (P|V|)``).  The
  caller computes it (``given(allowed)``: the ``Within`` rule that judges); its words name it.
- ``user_rule(function)``: ``function(out, ref, **named) -> None | reason`` (named: the sizes,
  axes, constants and ``dialect`` it takes), a reason fails the output with those words.
``rule_for(spec, index, name, dtype)`` resolves a ``check=`` value for one output: None (the
default: tolerance for floats, ``steps(1)`` for fp8 without rtol/atol, exact for integers and bool), one rule, a list (by output
index), a dict (by output index or parameter name; unnamed outputs get the default), or a
callable (a user rule).  torch is imported inside the judging only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from tlbench.backends.kernels.generic.output_errors import (MANY_STEPS, STEP_DTYPES, Verdict, aside, as_float, errors,
                                                           is_float_dtype, is_integer_dtype, step_distance, steps_would_accept, unwritten)

DEFAULT_RTOL = DEFAULT_ATOL = 1e-2


@dataclass(frozen=True)
class Tolerance:
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL

    @property
    def words(self) -> str:
        return f"tolerance(rtol={self.rtol:g}, atol={self.atol:g})"

    def fits(self, dtype: str) -> str | None:
        return None

    def judge(self, out: Any, ref: Any) -> Verdict:
        e = errors(as_float(out), ref)
        held = unwritten(out).reshape(e.err.shape)
        bad = ~(e.err <= self.atol + self.rtol * e.want.abs()) | e.non_finite | held
        count = int(bad.sum())
        detail = ""
        if count:
            detail = (f"{count} of {out.numel()} outside atol {self.atol:g} + rtol {self.rtol:g} * |ref|"
                      + aside(e.non_finite_count, int(held.sum())) + steps_would_accept(out, ref, bad))
        return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


@dataclass(frozen=True)
class Exact:
    @property
    def words(self) -> str:
        return "exact()"

    def fits(self, dtype: str) -> str | None:
        return None

    def judge(self, out: Any, ref: Any) -> Verdict:
        import torch

        held = unwritten(out)
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


@dataclass(frozen=True)
class Steps:
    k: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.k, int) or self.k < 0:
            raise ValueError(f"steps(k): k must be a whole number of representable values >= 0, got {self.k!r}")

    @property
    def words(self) -> str:
        return f"steps({self.k})"

    def fits(self, dtype: str) -> str | None:
        if dtype in STEP_DTYPES:
            return None
        return f"steps() counts representable values of a floating dtype ({', '.join(STEP_DTYPES)}), not of {dtype}"

    def judge(self, out: Any, ref: Any) -> Verdict:
        distance, non_finite = step_distance(out, ref)
        bad = (distance > self.k) | non_finite  # the largest finite value is one step from infinity: overflow fails
        count = int(bad.sum())
        e = errors(as_float(out), ref)
        worst_steps = int(distance[~non_finite].max()) if bool((~non_finite).any()) else -1
        detail = ""
        if count:
            detail = f"{count} of {out.numel()} more than {self.k} representable {out.dtype} value(s) from the reference"
            detail += f", worst {worst_steps} steps" if worst_steps >= 0 else ""
            detail += aside(int(non_finite.sum()), int(unwritten(out).sum()))
            if worst_steps >= max(MANY_STEPS, 2 * self.k + 1):  # an fp32 sum in another order, rounded: several steps off
                detail += "; a reduction summed in another order than the reference's lands this far: judge it with similarity()"
        return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, int(non_finite.sum()))


@dataclass(frozen=True)
class Similarity:
    max_diff: float | None = None
    min_cosine: float | None = None

    def __post_init__(self) -> None:
        if self.max_diff is not None and self.min_cosine is not None:
            raise ValueError("similarity(): give max_diff or min_cosine, not both")
        if self.max_diff is None and self.min_cosine is None:
            object.__setattr__(self, "max_diff", 1e-3)

    @property
    def words(self) -> str:
        return f"similarity(min_cosine={self.min_cosine:g})" if self.min_cosine is not None else f"similarity(max_diff={self.max_diff:g})"

    def fits(self, dtype: str) -> str | None:
        return None if is_float_dtype(dtype) else f"similarity() compares floating outputs, not {dtype}"

    def judge(self, out: Any, ref: Any) -> Verdict:
        x, y = as_float(out).double().reshape(-1), ref.double().reshape(-1)
        e = errors(x, y)
        held = int(unwritten(out).sum())
        if self.min_cosine is not None:
            norms = float(x.norm() * y.norm())
            value = float((x * y).sum()) / norms if norms > 0 else (1.0 if float(x.abs().sum() + y.abs().sum()) == 0 else 0.0)
            ok = value >= self.min_cosine and held == 0
            detail = "" if ok else f"cosine {value:.6g} below {self.min_cosine:g}"
        else:
            denominator = float((x * x + y * y).sum())
            value = 0.0 if denominator == 0 else 1.0 - 2.0 * float((x * y).sum()) / denominator
            ok = value <= self.max_diff and held == 0
            detail = "" if ok else f"diff 1 - 2x.y/(x.x+y.y) = {value:.6g} above {self.max_diff:g}"
        if not ok:
            detail += aside(e.non_finite_count, held)
        return Verdict(ok, 0 if ok else out.numel(), out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


@dataclass(frozen=True)
class Mismatch:
    fraction: float
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL

    def __post_init__(self) -> None:
        if not 0 <= self.fraction < 1:
            raise ValueError(f"mismatch(fraction): a fraction in [0, 1), got {self.fraction!r}")

    @property
    def words(self) -> str:
        return f"mismatch({self.fraction:g}, rtol={self.rtol:g}, atol={self.atol:g})"

    def fits(self, dtype: str) -> str | None:
        return None

    def judge(self, out: Any, ref: Any) -> Verdict:
        e = errors(as_float(out), ref)
        outside = ~(e.err <= self.atol + self.rtol * e.want.abs()) | e.non_finite
        count = int(outside.sum())
        held = int(unwritten(out).sum())
        ok = count <= self.fraction * out.numel() and held == 0
        detail = ""
        if not ok:
            allowed = ("more than" if count > self.fraction * out.numel() else "within") + f" the {self.fraction:g} allowed"
            detail = (f"{count} of {out.numel()} ({count / max(out.numel(), 1):.3g}) outside atol {self.atol:g} + rtol "
                      f"{self.rtol:g} * |ref|, {allowed}" + (", but none may hold the poison" if held else "")
                      + aside(e.non_finite_count, held))
        return Verdict(ok, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


@dataclass(frozen=True)
class UserRule:
    function: Callable[..., Any]

    @property
    def words(self) -> str:
        from tlbench.backends.kernels.generic.callables import callable_name

        name = callable_name(self.function)
        return "user check (a lambda)" if name == "a lambda" else f"user check {name}()"

    def fits(self, dtype: str) -> str | None:
        return None


def tolerance(rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> Tolerance:
    """Every element within ``atol + rtol * |ref|``; NaN never passes."""
    return Tolerance(float(rtol), float(atol))


def exact() -> Exact:
    """Equal values; the default for integer and bool outputs."""
    return Exact()


def steps(k: int = 1) -> Steps:
    """Within ``k`` representable values of the output's dtype of the reference rounded to it."""
    return Steps(k)


def similarity(max_diff: float | None = None, min_cosine: float | None = None) -> Similarity:
    """``1 - 2x.y/(x.x + y.y) <= max_diff`` (tilelang's examples' ``calc_diff``; 1e-3 by
    default), or ``cosine >= min_cosine``, over the whole output."""
    return Similarity(max_diff, min_cosine)


def mismatch(fraction: float, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> Mismatch:
    """At most ``fraction`` of the elements outside ``atol + rtol * |ref|`` (none unwritten)."""
    return Mismatch(float(fraction), float(rtol), float(atol))


@dataclass(frozen=True)
class Bound:
    allowed: Callable[..., Any]
    label: str = ""

    @property
    def words(self) -> str:
        from tlbench.backends.kernels.generic.callables import callable_name

        return f"bound({self.label or callable_name(self.allowed)})"

    def fits(self, dtype: str) -> str | None:
        return None if is_float_dtype(dtype) else f"bound() judges float outputs, not {dtype}"

    def given(self, allowed: Any) -> "Within":
        return Within(self.words, allowed)


@dataclass(frozen=True, eq=False)
class Within:
    """A ``Bound`` with its allowed errors computed for one run (a tensor, or one number)."""

    words: str
    allowed: Any

    def fits(self, dtype: str) -> str | None:
        return None

    def judge(self, out: Any, ref: Any) -> Verdict:
        import torch

        e = errors(as_float(out), ref)
        allowed = torch.as_tensor(self.allowed, device=e.err.device).double()
        if allowed.numel() > 1:  # as large as the output; a spot check judges a prefix of it
            allowed = allowed.reshape(-1)[: e.err.numel()].reshape(e.err.shape)
        held = unwritten(out).reshape(e.err.shape)
        bad = ~(e.err <= allowed) | e.non_finite | held
        count = int(bad.sum())
        detail = f"{count} of {out.numel()} outside the bound {self.words}" + aside(e.non_finite_count, int(held.sum())) if count else ""
        return Verdict(count == 0, count, out.numel(), e.max_abs, e.max_rel, detail, e.non_finite_count)


RULE_TYPES = (Tolerance, Exact, Steps, Similarity, Mismatch, Bound, UserRule)


def bound(allowed: Callable[..., Any], words: str = "") -> Bound:
    """Every element within ``allowed(ref, *inputs, **named)`` (allowed absolute errors)."""
    if not callable(allowed) and not isinstance(allowed, str):
        raise TypeError(f"bound(allowed): allowed must be a callable (ref, *inputs, **named) -> tensor, got {allowed!r}")
    return Bound(allowed, words)


def default_rule(dtype: str, given_tolerance: Tolerance | None = None) -> Any:
    """exact() for integers and bool; fp8 ``steps(1)`` (a tie is a whole step) unless rtol/atol were given."""
    if is_integer_dtype(dtype):
        return Exact()
    if given_tolerance is None and dtype.startswith("float8"):
        return Steps(1)
    return given_tolerance or Tolerance()


def _one(value: Any, where: str) -> Any:
    if isinstance(value, RULE_TYPES):
        return value
    if callable(value):
        return UserRule(value)
    raise TypeError(f"kernel_sweep: check{where} must be a rule (tolerance, steps, similarity, mismatch, exact, bound) or a "
                    f"callable check(out, ref, **named) -> None | reason, got {value!r}")


def normalize(spec: Any) -> Any:
    """A ``check=`` value with every entry made a rule (validated once, at declaration)."""
    if spec is None:
        return None
    if isinstance(spec, Mapping):
        return {key: _one(value, f"[{key!r}]") for key, value in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [_one(value, f"[{k}]") for k, value in enumerate(spec)]
    return _one(spec, "")


def rule_for(spec: Any, index: int, name: str, dtype: str, given_tolerance: Tolerance | None = None) -> Any:
    """The rule that judges output ``index`` (parameter ``name``, dtype ``dtype``)."""
    if spec is None:
        return default_rule(dtype, given_tolerance)
    if isinstance(spec, Mapping):
        chosen = spec.get(index, spec.get(name))
        return chosen if chosen is not None else default_rule(dtype, given_tolerance)
    if isinstance(spec, list):
        return spec[index] if index < len(spec) else default_rule(dtype, given_tolerance)
    return spec


def spec_problems(spec: Any, names: Sequence[str]) -> list[str]:
    """Entries of a per-output ``check=`` that name no output (an index past the end, a name
    that is no output parameter)."""
    problems = []
    if isinstance(spec, Mapping):
        for key in spec:
            if isinstance(key, int) and not 0 <= key < len(names):
                problems.append(f"check names output {key}, the kernel has {len(names)} output(s)")
            elif isinstance(key, str) and key not in names:
                problems.append(f"check names output {key!r}, the kernel's outputs are {', '.join(names) or 'none'}")
    elif isinstance(spec, list) and len(spec) > len(names):
        problems.append(f"check lists {len(spec)} rules, the kernel has {len(names)} output(s)")
    return problems
