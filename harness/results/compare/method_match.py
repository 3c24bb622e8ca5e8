"""Whether two runs measured their paired items the same way.  Data only: no printing.

Contract: ``method_of(record, traits)``: ``{label: value}`` of how a record as written was
measured.  ``check_methods(pairs, base_name, new_name, traits_of)``: a ``MethodCheck`` with a
``MethodMismatch`` per backend, kind and differing method, and ``notes`` on labels one side
lacks.  ``refusal(mismatches, options_of)``: the line compare raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ...core.backend_traits import BackendTraits, generic_measurement_method
from ..compile_gate import compile_method

ALLOW_FLAG = "--allow-method-mismatch"
NAMED_ITEMS = 2  # case ids a refusal names before "and N more"

Method = tuple[tuple[str, Any], ...]  # (label, value) pairs in the traits' order


@dataclass(frozen=True)
class MethodMismatch:
    """Items of one backend and kind measured one way in the base run and another in the new."""

    backend: str
    kind: str
    items: tuple[str, ...]  # case ids
    base: Method
    new: Method

    @property
    def changes(self) -> list[str]:
        """``label base -> new`` for each label both sides carry and do not share."""
        new = dict(self.new)
        return [f"{label} {value} -> {new[label]}" for label, value in self.base if label in new and new[label] != value]

    @property
    def where(self) -> str:
        return f"{self.backend} in {len(self.items)} {self.kind} item{'s' if len(self.items) != 1 else ''}"

    @property
    def words(self) -> str:
        return f"METHOD MISMATCH {self.where}: {'; '.join(self.changes)} (compared anyway, on request)"


@dataclass(frozen=True)
class MethodCheck:
    mismatches: tuple[MethodMismatch, ...] = ()
    notes: tuple[str, ...] = ()


def method_of(record: Mapping[str, Any], traits: BackendTraits) -> Method:
    if record.get("kind") == "compile":
        return tuple((label, value) for label, value in compile_method.option_method(record).items())
    describe = getattr(traits, "measurement_method", None)
    found = describe(record) if describe is not None else generic_measurement_method(record)
    return tuple((str(label), _plain(value)) for label, value in found.items())


def _plain(value: Any) -> Any:
    """A value as it is where it can key a dict (str, number, bool), else its JSON text."""
    return value if isinstance(value, (str, int, float, bool)) else json.dumps(value, sort_keys=True, default=str)


def check_methods(
    pairs: Iterable[tuple[Any, Mapping[str, Any], Mapping[str, Any]]],
    base_name: str,
    new_name: str,
    traits_of: Callable[[str], BackendTraits],
) -> MethodCheck:
    differing: dict[tuple[str, str, Method, Method], list[str]] = {}
    unknown: dict[tuple[str, str, str, str], int] = {}  # (backend, kind, label, file lacking it) -> items
    for key, base_rec, new_rec in pairs:
        traits = traits_of(key.backend)
        base, new = method_of(base_rec.raw, traits), method_of(new_rec.raw, traits)
        base_map, new_map = dict(base), dict(new)
        for label in base_map.keys() ^ new_map.keys():
            lacking = new_name if label in base_map else base_name
            unknown[(key.backend, key.kind, label, lacking)] = unknown.get((key.backend, key.kind, label, lacking), 0) + 1
        if any(base_map[label] != new_map[label] for label in base_map.keys() & new_map.keys()):
            differing.setdefault((key.backend, key.kind, base, new), []).append(key.case_id)
    mismatches = tuple(MethodMismatch(b, k, tuple(items), base, new) for (b, k, base, new), items in differing.items())
    notes = tuple(
        f"{backend}: {label} not recorded in {lacking} for {n} {kind} item{'s' if n != 1 else ''} "
        "(an older results file): not checked"
        for (backend, kind, label, lacking), n in unknown.items()
    )
    return MethodCheck(mismatches, notes)


def refusal(mismatches: tuple[MethodMismatch, ...], options_of: Callable[[str], tuple[str, ...]]) -> str:
    """One line: the first mismatch in full, how many more, and what to do."""
    first = mismatches[0]
    named = ", ".join(first.items[:NAMED_ITEMS]) + (f" and {len(first.items) - NAMED_ITEMS} more" if len(first.items) > NAMED_ITEMS else "")
    more = f" (and {len(mismatches) - 1} more group{'s' if len(mismatches) != 2 else ''} of items measured otherwise)" if len(mismatches) > 1 else ""
    options = compile_method.OPTIONS if first.kind == "compile" else options_of(first.backend)
    same = f"the same {' and '.join(options)}" if options else "the same measurement options"
    return (
        f"measurement method differs for {first.where} ({named}): {'; '.join(first.changes)}{more}; "
        f"re-run one of them with {same}, or pass {ALLOW_FLAG} to compare anyway (the report says so)"
    )
