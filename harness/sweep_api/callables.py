"""Calling a suite's own callables with exactly the names they take, and saying so when they fail.

Contract: a callable receives, as keyword arguments, the values on offer it takes (tensors
positionally first); ``Takes.of(function)`` is what a signature takes.  ``suite_call`` /
``bound_call`` turn an exception of the suite's code into a one-line ``SuiteCodeError``, except a
device error.  Nothing here imports torch or tilelang.
"""

from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..core.backend_api import SuiteCodeError

DEVICE_ERROR_WORDS = ("CUDA error", "cudaError", "CUBLAS_STATUS", "device-side assert", "ACL error", "NPU error",
                      "illegal memory access", "unspecified launch failure")


@dataclass(frozen=True)
class Takes:
    """What a callable takes: positional slots, keyword names, required ones, ``*args`` / ``**kwargs``."""

    positional: tuple[str, ...]  # names that can be filled by position, in order
    keyword: tuple[str, ...]  # every name that can be passed by keyword
    required: tuple[str, ...]  # names without a default (positional or keyword-only)
    var_positional: bool
    var_keyword: bool

    @classmethod
    def of(cls, function: Any) -> "Takes | None":
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            return None
        positional, keyword, required = [], [], []
        var_positional = var_keyword = False
        for p in signature.parameters.values():
            if p.kind is p.VAR_POSITIONAL:
                var_positional = True
            elif p.kind is p.VAR_KEYWORD:
                var_keyword = True
            else:
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    positional.append(p.name)
                if p.kind is not p.POSITIONAL_ONLY:
                    keyword.append(p.name)
                if p.default is p.empty:
                    required.append(p.name)
        return cls(tuple(positional), tuple(keyword), tuple(required), var_positional, var_keyword)

    def too_many(self, n_positional: int) -> bool:
        return not self.var_positional and n_positional > len(self.positional)

    def by_keyword(self, values: Mapping[str, Any], n_positional: int = 0) -> dict[str, Any]:
        """The entries of ``values`` this callable takes by keyword, less the names filled by position."""
        filled = set(self.positional[:n_positional])
        if self.var_keyword:
            return {k: v for k, v in values.items() if k not in filled}
        return {k: v for k, v in values.items() if k in self.keyword and k not in filled}

    def unmet(self, available: Iterable[str], n_positional: int = 0) -> list[str]:
        filled = set(self.positional[:n_positional]) | set(available)
        return [name for name in self.required if name not in filled]


def call_named(function: Callable[..., Any], values: Mapping[str, Any], positional: Sequence[Any] = ()) -> Any:
    takes = Takes.of(function)
    if takes is None:
        return function(*positional)
    return function(*positional, **takes.by_keyword(values, len(positional)))


def is_device_error(exc: BaseException) -> bool:
    """Whether ``exc`` says the accelerator itself failed (not the suite's code)."""
    if type(exc).__name__ in ("AcceleratorError", "CudaError"):
        return True
    text = str(exc)
    return any(words in text for words in DEVICE_ERROR_WORDS)


def suite_call(what: str, function: Callable[..., Any], values: Mapping[str, Any], positional: Sequence[Any] = (),
               where: str = "") -> Any:
    """``call_named``; an exception of the suite's code becomes ``SuiteCodeError`` (see the contract)."""
    return bound_call(what, function, values, positional, where)()


def failure_words(what: str, exc: BaseException, where: str = "") -> str:
    """``<what> raised <Type> (<where>): <its words, one line>``: where first, so it is never cut."""
    return f"{what} raised {type(exc).__name__}" + (f" ({where})" if where else "") + f": {one_line(str(exc))}"


def bound_call(what: str, function: Callable[..., Any], values: Mapping[str, Any], positional: Sequence[Any] = (),
               where: str = "") -> Callable[[], Any]:
    """``suite_call`` with its names matched once, ahead (a timed call pays no signature reading)."""
    takes = Takes.of(function)
    kwargs = takes.by_keyword(values, len(positional)) if takes is not None else {}
    args = tuple(positional)

    def call() -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the suite's own code: its words, one line
            if is_device_error(exc) or isinstance(exc, SuiteCodeError):
                raise
            raise SuiteCodeError(failure_words(what, exc, where)) from exc

    return call


def one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def callable_name(function: Any) -> str:
    inner = getattr(function, "__wrapped__", function)
    name = getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or type(function).__name__
    return "a lambda" if name.endswith("<lambda>") else name


def named_what(label: str, function: Any) -> str:
    """``reference``, ``reference (a lambda)`` or ``reference ref_fn``: the role, then the name where it adds one."""
    name = callable_name(function)
    if name == "a lambda":
        return f"{label} (a lambda)"
    return label if name == label else f"{label} {name}"

