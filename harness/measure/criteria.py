"""Stopping criteria: named objects that say when an item has enough samples.

Contract: ``make_criterion(spec)`` reads ``NAME[:key=value,...]`` (``--tlbench-criterion``; else
``CriterionError``); ``is_finished(samples)``, ``progress(samples)`` (the value compared with the
target), ``describe()`` (``{"name", "params"}``, stored in each record).  Caps are not criteria.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, fields
from typing import Callable, Protocol, Sequence

from ..core.stats import CONFIDENCE, median_ci, median


class CriterionError(ValueError):
    """A --tlbench-criterion spec that names no criterion or a parameter it does not take."""


class StoppingCriterion(Protocol):
    name: str

    def is_finished(self, samples: Sequence[float]) -> bool: ...

    def progress(self, samples: Sequence[float]) -> float: ...

    def describe(self) -> dict[str, str | dict[str, float]]: ...


class _Described:
    """``describe()`` from the dataclass's own parameters (every field but ``name``)."""

    def describe(self) -> dict[str, str | dict[str, float]]:
        params = {f.name: getattr(self, f.name) for f in fields(self) if f.init}  # type: ignore
        return {"name": self.name, "params": params}  # type: ignore[attr-defined]


@dataclass(frozen=True)
class MedianCI(_Described):
    """Stop when the median's exact ~95 % CI half-width is within ``rel`` of it (outlier-robust)."""

    rel: float = 0.005
    confidence: float = CONFIDENCE
    min_samples: int = 20
    name: str = field(default="median-ci", init=False)

    def progress(self, samples: Sequence[float]) -> float:
        if len(samples) < 2:
            return math.inf
        values = sorted(samples)
        lo, hi = median_ci(values, self.confidence)
        mid = median(values)
        return (hi - lo) / 2 / mid if mid > 0 else math.inf

    def is_finished(self, samples: Sequence[float]) -> bool:
        return len(samples) >= self.min_samples and self.progress(samples) <= self.rel


@dataclass(frozen=True)
class StdRel(_Described):
    """Stop when stdev / mean <= ``max_noise`` (nvbench's default; a slow tail ends CAPPED)."""

    max_noise: float = 0.005
    min_samples: int = 20
    name: str = field(default="stdrel", init=False)

    def progress(self, samples: Sequence[float]) -> float:
        if len(samples) < 2:
            return math.inf
        mean = statistics.fmean(samples)
        return statistics.stdev(samples) / mean if mean > 0 else math.inf

    def is_finished(self, samples: Sequence[float]) -> bool:
        return len(samples) >= self.min_samples and self.progress(samples) <= self.max_noise


@dataclass(frozen=True)
class FixedCount(_Described):
    """Stop after exactly ``samples`` samples (a fixed budget; for reproducing a run)."""

    samples: int = 60
    name: str = field(default="fixed", init=False)

    def progress(self, samples: Sequence[float]) -> float:
        return float(len(samples))

    def is_finished(self, samples: Sequence[float]) -> bool:
        return len(samples) >= self.samples


CRITERIA: dict[str, Callable[..., StoppingCriterion]] = {"median-ci": MedianCI, "stdrel": StdRel, "fixed": FixedCount}
DEFAULT_SPEC = "median-ci:rel=0.005"


def _number(text: str) -> float | int:
    try:
        return int(text)
    except ValueError:
        return float(text)


def make_criterion(spec: str) -> StoppingCriterion:
    """``NAME[:key=value,...]`` -> a criterion; a clear error for anything else."""
    name, _, rest = spec.strip().partition(":")
    if name not in CRITERIA:
        raise CriterionError(f"unknown stopping criterion {name!r} in {spec!r}; known: {', '.join(CRITERIA)} (e.g. {DEFAULT_SPEC})")
    factory = CRITERIA[name]
    known = [f for f in factory.__dataclass_fields__ if f != "name"]  # type: ignore[attr-defined]
    params: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or key not in known:
            raise CriterionError(f"criterion {name!r} takes {', '.join(k + '=NUMBER' for k in known)}; got {part!r}")
        try:
            params[key] = _number(value)
        except ValueError:
            raise CriterionError(f"criterion {name!r}: {key} must be a number, got {value!r}") from None
        if params[key] <= 0:
            raise CriterionError(f"criterion {name!r}: {key} must be > 0, got {value!r}")
    return factory(**params)
