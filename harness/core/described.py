"""Problems and configs as plain named values, and the family that reads them back from records alone.

Contract: a kernel declared through harness/sweep_api has problem ``DescribedProblem(family_name, values)`` (its
sizes) and config ``DescribedConfig(values)`` (the sweep axes); ``to_dict`` gives exactly those dicts.  Ids and
labels are the live family's words where it formats them (``bound_to``), else derived in declaration order:
``problem_id`` ``<family>-<token>-...``, ``config_id`` ``<token>-...``; a token is ``<key><value>``, ``num_stages``
``s<n>``, a ``dtype`` or ``loop_form`` key its value alone (a None ``num_stages`` beside a loop form left out);
integers and floats as written (``-`` -> ``m``), booleans ``1``/``0``, dtypes short, other strings with characters
outside ``[A-Za-z0-9_.]`` as ``_``, lists joined by ``x``, None ``none``.  Without a ``loop_form`` axis a
``num_stages`` is loop form ``auto``, and neither is ``none``.

Records carry ``"family_described": true`` (``DESCRIBED_KEY``) and under ``WORDS_KEY`` the live family's ``Words``,
so ``DescribedFamily`` (``family_for_record``) answers every reader from the record alone; ``record_stage(record)``
is a record's place on the pipeline-depth axis.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

from . import loop_form
from .budget import Scope, ScopeUse
from .cases import DTYPE_SHORT, CaseIdParts, CheckResult, StagePoint

DESCRIBED_KEY = "family_described"
WORDS_KEY = "described_as"
STAGES_KEY = "num_stages"
LOOP_FORM_KEY = "loop_form"
DTYPE_KEY = "dtype"
PLAIN = (int, float, str, bool, type(None))


class Params(dict):
    """An immutable, hashable, insertion-ordered dict of plain values (lists held as tuples)."""

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
    """A value as it goes into a record: plain JSON types, lists as tuples, anything else by its ``str``; a
    mapping raises ``TypeError``."""
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
    if key in (DTYPE_KEY, LOOP_FORM_KEY):
        return id_value(value)
    return f"{key}{id_value(value)}"


def tokens(values: Mapping[str, Any], skip: Sequence[str] = ()) -> list[str]:
    formed = LOOP_FORM_KEY in values  # manual / serial: no depth to name
    return [token(k, v) for k, v in values.items() if k not in skip and not (formed and k == STAGES_KEY and v is None)]


def problem_label(values: Mapping[str, Any]) -> str:
    """A problem's short label for reports: its size tokens (``M4096 N8192 f32``)."""
    return " ".join(tokens(values)) or "-"


StageFacts = StagePoint


def stage_facts(values: Mapping[str, Any], tile: str | None = None) -> StageFacts:
    """``tile``: the config's words without its depth (default: its tokens but the depth's)."""
    tile = tile if tile is not None else " ".join(tokens(values, skip=(STAGES_KEY, LOOP_FORM_KEY))) or "-"
    stages = values.get(STAGES_KEY)
    form = values.get(LOOP_FORM_KEY)
    if form is not None:
        depth = int(stages) if isinstance(stages, int) and not isinstance(stages, bool) else None
        return StageFacts(tile, loop_form.loop_id(str(form), depth), str(form), depth)
    if stages is None:
        return StageFacts(tile, "none", "none", None)
    return StageFacts(tile, f"auto-s{id_value(stages)}", "auto", int(stages) if isinstance(stages, int) else None)


@dataclass(frozen=True)
class Words:
    """What a live family says of one case beyond its values (``WORDS_KEY``); None: derived from the values."""

    problem_id: str | None = None
    config_id: str | None = None
    problem_label: str | None = None
    stage: StageFacts | None = None
    loop_trips: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {"problem_id": self.problem_id, "problem_label": self.problem_label,
                **({"config_id": self.config_id} if self.config_id is not None else {}),
                **({"stage": asdict(self.stage)} if self.stage is not None else {}),
                **({"loop_trips": self.loop_trips} if self.loop_trips is not None else {})}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "Words":
        data = data if isinstance(data, Mapping) else {}
        stage = data.get("stage")
        facts = (StageFacts(str(stage.get("tile", "-")), str(stage.get("loop_id", "none")), str(stage.get("loop_form", "none")),
                            stage.get("num_stages") if isinstance(stage.get("num_stages"), int) else None)
                 if isinstance(stage, Mapping) else None)
        trips = data.get("loop_trips")
        return cls(_text(data.get("problem_id")), _text(data.get("config_id")), _text(data.get("problem_label")), facts,
                   trips if isinstance(trips, int) and not isinstance(trips, bool) else None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class _Bindable:
    """``values`` held as ``Params``; ``bound_to(family)`` is a copy that knows the family wording it."""

    def __post_init__(self) -> None:
        if not isinstance(self.values, Params):
            object.__setattr__(self, "values", Params(self.values))

    def bound_to(self, family: Any) -> Any:
        out = replace(self)
        object.__setattr__(out, "_family", family)  # not a field: ids, equality and dicts ignore it
        return out

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.values, default=str))


@dataclass(frozen=True, eq=True)
class DescribedProblem(_Bindable):
    """The sizes one kernel is built for; ``family``: the one it is ``bound_to``, else a ``DescribedFamily``."""

    family_name: str
    values: Params

    @property
    def family(self) -> Any:
        return self.__dict__.get("_family") or DescribedFamily(self.family_name)

    @property
    def problem_id(self) -> str:
        return self.family.problem_id_of(self)

    @property
    def dtype(self) -> Any:
        return self.values.get(DTYPE_KEY)


@dataclass(frozen=True, eq=True)
class DescribedConfig(_Bindable):
    """One point of the sweep: the factory's keyword arguments besides the sizes."""

    values: Params

    def with_value(self, key: str, value: Any) -> "DescribedConfig":
        """This config with one axis set otherwise (same family, same key order)."""
        made = DescribedConfig(Params({**self.values, key: value}))
        family = self.__dict__.get("_family")
        return made.bound_to(family) if family is not None else made

    @property
    def config_id(self) -> str:
        family = self.__dict__.get("_family")
        return family.config_id_of(self) if family is not None else derived_config_id(self.values)

    @property
    def stage(self) -> StageFacts:
        family = self.__dict__.get("_family")
        return family.stage_facts_of(self) if family is not None else stage_facts(self.values)


def derived_problem_id(family_name: str, values: Mapping[str, Any]) -> str:
    return "-".join([family_name, *tokens(values)])


def derived_config_id(values: Mapping[str, Any]) -> str:
    return "-".join(tokens(values)) or "default"


def described(record: Mapping[str, Any]) -> bool:
    """Whether a record names its problem and config as plain values (``DESCRIBED_KEY``)."""
    return bool(record.get(DESCRIBED_KEY))


def record_words(record: Mapping[str, Any]) -> Words:
    """What a described record says of itself (``WORDS_KEY``; empty for any other record)."""
    return Words.from_dict(record.get(WORDS_KEY)) if described(record) else Words()


def record_stage(record: Mapping[str, Any]) -> StageFacts | None:
    """A described record's place on the pipeline-depth axis; None for a vendor item or another record."""
    config = record.get("config")
    if not described(record) or not isinstance(config, Mapping):
        return None
    return record_words(record).stage or stage_facts(config)


def family_for_record(record: Mapping[str, Any]) -> "DescribedFamily":
    return DescribedFamily(str(record.get("family")), record_words(record))


class DescribedFamily:
    """The reader's side of a described kernel, from one record's ``Words`` and values; building, inputs and
    checks raise (they need the suite)."""

    described = True

    def __init__(self, name: str, words: Words | None = None) -> None:
        self.name = name
        self.words = words or Words()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DescribedFamily) and other.name == self.name

    def __hash__(self) -> int:
        return hash((DescribedFamily, self.name))

    def problem_from_dict(self, data: Mapping[str, Any]) -> DescribedProblem:
        return DescribedProblem(self.name, Params(data)).bound_to(self)

    def config_from_dict(self, data: Mapping[str, Any]) -> DescribedConfig:
        return DescribedConfig(Params(data)).bound_to(self)

    def problem_id_of(self, problem: DescribedProblem) -> str:
        return self.words.problem_id or derived_problem_id(self.name, problem.values)

    def config_id_of(self, config: DescribedConfig) -> str:
        return self.words.config_id or derived_config_id(config.values)

    def stage_facts_of(self, config: DescribedConfig) -> StageFacts:
        return self.words.stage or stage_facts(config.values)

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
        """``<problem_id>[-<label>]-<config_id>`` split at the problem id the record names."""
        problem_id = self.words.problem_id
        if not problem_id or not case_id.startswith(problem_id + "-"):
            raise ValueError(f"{case_id!r}: kernel {self.name!r} read back from records has no id grammar; "
                             "its records' problem and config values are the parts")
        rest = case_id[len(problem_id) + 1:]
        label, _, config_id = rest.partition("-") if rest.startswith("best-") else (None, "", rest)
        return CaseIdParts(problem_id, label, config_id)

    def stage_point(self, config: DescribedConfig) -> StagePoint:
        return config.stage.point()

    def problem_label(self, problem: DescribedProblem) -> str:
        return self.words.problem_label or problem_label(problem.values)

    def loop_trips(self, problem: Any, config: Any) -> int | None:
        return self.words.loop_trips

    def _no_body(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"kernel {self.name!r} was read back from records: load its suite to build or run it")

    build = make_inputs = kernel_args = output = _no_body

    def check(self, inputs: Any, problem: Any) -> CheckResult:
        return self._no_body()
