"""Problems and configs as plain named values, and the family that reads them back from records alone.

Contract: a kernel declared through the generic path (backends/kernels/generic) has no types of
its own: its problem is ``DescribedProblem(family_name, values)`` (the sizes the kernel is
built for, e.g. ``{"M": 8192, "N": 8192}``) and its config ``DescribedConfig(values)`` (the
sweep axes, the factory's keyword arguments, e.g. ``{"blk_m": 1, "num_stages": 2}``).
Both turn into exactly those dicts (``to_dict``), and their ids are derived from names and
values in declaration order, so they are the same wherever they are computed:

- ``problem_id``: ``<family>-<token>-...``; ``config_id``: ``<token>-...``;
- a token is ``<key><value>``; ``num_stages`` is written ``s<n>``, a ``dtype`` key its short
  dtype alone (``f16``); values: integers and floats as written (``-`` becomes ``m``), booleans
  ``1``/``0``, dtype strings short (``float16`` -> ``f16``), other strings with characters
  outside ``[A-Za-z0-9_.]`` replaced by ``_``, lists joined by ``x``, None ``none``;
- the pipeline depth is the ``num_stages`` value (loop form ``auto``); a config without one
  has loop form ``none``.

Records of such a kernel carry ``"family_described": true`` (``DESCRIBED_KEY``).  A reader that
does not know the family's name (it was registered by a suite, not by an entry point) reads
them through ``DescribedFamily(name)``, which needs nothing but the record: ids, the stage
point and labels come from the same derivation.  Nothing here knows a backend or a kernel.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from tlbench.harness.core.budget import Scope, ScopeUse
from tlbench.harness.core.cases import DTYPE_SHORT, CaseIdParts, CheckResult, StagePoint

DESCRIBED_KEY = "family_described"
STAGES_KEY = "num_stages"
DTYPE_KEY = "dtype"
PLAIN = (int, float, str, bool, type(None))


class Params(dict):
    """An insertion-ordered, hashable mapping of plain values (lists held as tuples); a dict,
    so it is JSON as it is.  Never changed after construction."""

    def __init__(self, values: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__((str(k), plain_value(v)) for k, v in dict(values).items())

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(json.dumps(list(self.items()), default=str))

    def __reduce__(self) -> tuple[Any, ...]:  # pickle and deepcopy through __init__, not __setitem__
        return (Params, (list(self.items()),))

    def _frozen(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("Params are immutable")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _frozen  # type: ignore[assignment]


def plain_value(value: Any) -> Any:
    """A value as it goes into a record: plain JSON types, lists as tuples; anything else (a
    dtype object) by its ``str``.  A mapping is refused: name its entries as axes instead."""
    if isinstance(value, PLAIN):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(plain_value(v) for v in value)
    if isinstance(value, Mapping):
        raise TypeError(f"a size or axis value cannot be a mapping ({value!r}): give each entry its own name")
    return str(value)


def id_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "none"
    if isinstance(value, int):
        return str(value).replace("-", "m")
    if isinstance(value, float):
        text = repr(value) if math.isfinite(value) else str(value)
        return text.replace("-", "m").replace("+", "")
    if isinstance(value, (list, tuple)):
        return "x".join(id_value(v) for v in value)
    text = str(value)
    return DTYPE_SHORT.get(text, re.sub(r"[^A-Za-z0-9_.]", "_", text))


def token(key: str, value: Any) -> str:
    if key == STAGES_KEY:
        return f"s{id_value(value)}"
    if key == DTYPE_KEY:
        return id_value(value)
    return f"{key}{id_value(value)}"


def tokens(values: Mapping[str, Any], skip: Sequence[str] = ()) -> list[str]:
    return [token(k, v) for k, v in values.items() if k not in skip]


def problem_label(values: Mapping[str, Any]) -> str:
    """A problem's short label for reports: its size tokens (``M4096 N8192 f32``)."""
    return " ".join(tokens(values)) or "-"


@dataclass(frozen=True)
class StageFacts:
    tile: str
    loop_id: str
    loop_form: str
    num_stages: int | None


def stage_facts(values: Mapping[str, Any]) -> StageFacts:
    tile = " ".join(tokens(values, skip=(STAGES_KEY,))) or "-"
    stages = values.get(STAGES_KEY)
    if stages is None:
        return StageFacts(tile, "none", "none", None)
    return StageFacts(tile, f"auto-s{id_value(stages)}", "auto", int(stages) if isinstance(stages, int) else None)


@dataclass(frozen=True, eq=True)
class DescribedProblem:
    """The sizes one kernel is built for.  ``family`` is the live family that made it (set by
    ``bound_to``), else a ``DescribedFamily`` of the name (a problem read back from a record)."""

    family_name: str
    values: Params

    def __post_init__(self) -> None:
        if not isinstance(self.values, Params):
            object.__setattr__(self, "values", Params(self.values))

    def bound_to(self, family: Any) -> "DescribedProblem":
        out = DescribedProblem(self.family_name, self.values)
        object.__setattr__(out, "_family", family)  # not a field: ids, equality and dicts ignore it
        return out

    @property
    def family(self) -> Any:
        return self.__dict__.get("_family") or DescribedFamily(self.family_name)

    @property
    def problem_id(self) -> str:
        return "-".join([self.family_name, *tokens(self.values)])

    @property
    def dtype(self) -> Any:
        return self.values.get(DTYPE_KEY)

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.values, default=str))


@dataclass(frozen=True, eq=True)
class DescribedConfig:
    """One point of the sweep: the factory's keyword arguments besides the sizes."""

    values: Params

    def __post_init__(self) -> None:
        if not isinstance(self.values, Params):
            object.__setattr__(self, "values", Params(self.values))

    @property
    def config_id(self) -> str:
        return "-".join(tokens(self.values)) or "default"

    @property
    def stage(self) -> StageFacts:
        return stage_facts(self.values)

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.values, default=str))


def described(record: Mapping[str, Any]) -> bool:
    """Whether a record names its problem and config as plain values (``DESCRIBED_KEY``)."""
    return bool(record.get(DESCRIBED_KEY))


class DescribedFamily:
    """The reader's side of a described kernel: every ``KernelFamily`` member a report, a
    comparison, the history or an export asks for, from the record's own values.  Building,
    inputs and checks belong to the live family (the suite's); asked here they raise."""

    problem_type = DescribedProblem
    config_type = DescribedConfig
    described = True

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DescribedFamily) and other.name == self.name

    def __hash__(self) -> int:
        return hash((DescribedFamily, self.name))

    def problem_from_dict(self, data: Mapping[str, Any]) -> DescribedProblem:
        return DescribedProblem(self.name, Params(data))

    def config_from_dict(self, data: Mapping[str, Any]) -> DescribedConfig:
        return DescribedConfig(Params(data))

    def validate(self, problem: Any, config: Any, dialect: str) -> str | None:
        return None

    def mma_tiles(self, problem: Any, config: Any) -> list[tuple[int, int]]:
        return []

    def flops(self, problem: Any) -> int:
        return 0  # the record's throughput holds the rates the live family derived

    def bytes_moved(self, problem: Any) -> int:
        return 0

    def footprint(self, problem: Any, config: Any, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        return ()

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        raise ValueError(f"{case_id!r}: kernel {self.name!r} read back from records has no id grammar; "
                         "its records' problem and config values are the parts")

    def stage_point(self, config: DescribedConfig) -> StagePoint:
        facts = config.stage
        return StagePoint(facts.tile, facts.loop_id, facts.loop_form, facts.num_stages)

    def problem_label(self, problem: DescribedProblem) -> str:
        return problem_label(problem.values)

    def loop_trips(self, problem: Any, config: Any) -> int | None:
        return None

    def _no_body(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"kernel {self.name!r} was read back from records: load its suite to build or run it")

    build = make_inputs = kernel_args = output = _no_body

    def check(self, inputs: Any, problem: Any) -> CheckResult:
        return self._no_body()
