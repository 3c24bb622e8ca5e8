"""Rules that judge one kernel output against its reference: the ``check=`` of ``kernel_sweep``.

Contract: each rule is a frozen value with ``words`` (its name in records and reports),
``fits(dtype_name) -> None | why not`` and, for the built-in ones, ``judge(out, ref) -> Verdict``
(torch: backends/kernels/generic/judges.py).  ``normalize(check)`` validates a ``check=`` value
(a ``TypeError`` naming a bad entry); ``rule_for`` is the rule of one output (``default_rule``
where the spec names none); ``spec_problems`` the entries that name no output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .callables import callable_name
from .runtime import runtime

DEFAULT_RTOL = DEFAULT_ATOL = 1e-2
MANY_STEPS = 4  # steps a failing element may be off before a steps() failure names similarity()
STEP_DTYPES = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3", "float16",
               "bfloat16", "float32", "float64")


def is_float_dtype(name: str) -> bool:
    return name.startswith(("float", "bfloat", "e4m3", "e5m2")) or name in ("half",)


def is_integer_dtype(name: str) -> bool:
    return name.startswith(("int", "uint")) or name == "bool"


class Judged:
    """A built-in rule: it fits every dtype unless it says otherwise; torch judges it (the runtime's)."""

    def fits(self, dtype: str) -> str | None:
        return None

    def judge(self, out: Any, ref: Any) -> Any:
        return runtime().judge(self, out, ref)


@dataclass(frozen=True)
class Tolerance(Judged):
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL

    @property
    def words(self) -> str:
        return f"tolerance(rtol={self.rtol:g}, atol={self.atol:g})"


@dataclass(frozen=True)
class Exact(Judged):
    words = "exact()"


@dataclass(frozen=True)
class Steps(Judged):
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


@dataclass(frozen=True)
class Similarity(Judged):
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


@dataclass(frozen=True)
class Mismatch(Judged):
    fraction: float
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL

    def __post_init__(self) -> None:
        if not 0 <= self.fraction < 1:
            raise ValueError(f"mismatch(fraction): a fraction in [0, 1), got {self.fraction!r}")

    @property
    def words(self) -> str:
        return f"mismatch({self.fraction:g}, rtol={self.rtol:g}, atol={self.atol:g})"


@dataclass(frozen=True, eq=False)
class Within(Judged):
    """A ``Bound`` with its allowed errors computed for one run (a tensor, or one number)."""

    words: str
    allowed: Any


@dataclass(frozen=True)
class UserRule:
    function: Callable[..., Any]

    @property
    def words(self) -> str:
        name = callable_name(self.function)
        return "user check (a lambda)" if name == "a lambda" else f"user check {name}()"

    def fits(self, dtype: str) -> str | None:
        return None


@dataclass(frozen=True)
class Bound:
    allowed: Callable[..., Any]
    label: str = ""

    @property
    def words(self) -> str:
        return f"bound({self.label or callable_name(self.allowed)})"

    def fits(self, dtype: str) -> str | None:
        return None if is_float_dtype(dtype) else f"bound() judges float outputs, not {dtype}"

    def given(self, allowed: Any) -> Within:
        return Within(self.words, allowed)


RULE_TYPES = (Tolerance, Exact, Steps, Similarity, Mismatch, Bound, UserRule)


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
    """Entries of a per-output ``check=`` that name no output."""
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
