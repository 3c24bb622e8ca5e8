"""A suite's vendor items: the vendor library calls timed beside its kernels, per body dialect.

Contract: ``VendorTable.of(vendor, label)`` reads ``kernel_sweep``'s ``vendor=`` / ``vendor_label=``
(a bad value raises naming it); ``vendor_run(...)`` returns an item's callable and label: a call
that names ``out`` writes the outputs in place, any other's output is copied into them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .callables import Takes, bound_call, named_what
from .runtime import runtime

ANY_DIALECT = "*"
LIBRARY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
OUT = "out"


def per_dialect_example(*values: str) -> str:
    """``{'cuda': f, 'ascend': g}``: a dict by body dialect, for an error message (the dialects are
    the runtime's to name: the harness names none)."""
    dialects = runtime().EXAMPLE_DIALECTS
    return "{" + ", ".join(f"{d!r}: {values[k % len(values)]}" for k, d in enumerate(dialects)) + "}"


def _is_call(value: Any) -> bool:
    return callable(value) or isinstance(value, str)


@dataclass(frozen=True)
class VendorTable:
    by_dialect: Mapping[str, Mapping[str | None, Any]] = field(default_factory=dict)  # dialect -> library (None) -> call
    labels: Mapping[str | None, Any] = field(default_factory=dict)  # library (None: the unnamed item) -> words or callable

    @classmethod
    def of(cls, vendor: Any, label: Any = None) -> "VendorTable":
        if vendor is None:
            return cls()
        if _is_call(vendor):
            table: dict[str, dict[str | None, Any]] = {ANY_DIALECT: {None: vendor}}
        elif isinstance(vendor, Mapping) and vendor:
            table = {}
            for dialect, entry in vendor.items():
                if _is_call(entry):
                    table[str(dialect)] = {None: entry}
                elif isinstance(entry, Mapping) and entry and all(_is_call(v) for v in entry.values()):
                    bad = [k for k in entry if not (isinstance(k, str) and LIBRARY.match(k))]
                    if bad:
                        raise ValueError(f"kernel_sweep: vendor library name(s) {bad!r} must be a letter then letters, digits "
                                         "or _ (each names its item's id)")
                    table[str(dialect)] = dict(entry)
                else:
                    raise TypeError(f"kernel_sweep: vendor[{dialect!r}] must be a callable, a 'module:attribute' or a dict "
                                    f"of named ones ({{'sdpa_flash': f, ...}}), got {entry!r}")
        else:
            raise TypeError("kernel_sweep: vendor must be a callable, a 'module:attribute', or a dict by body dialect "
                            f"({per_dialect_example('f', 'g')}) of those or of named libraries; got {vendor!r}")
        named = {lib for entries in table.values() for lib in entries if lib is not None}
        if isinstance(label, Mapping):
            stray = sorted(set(map(str, label)) - {str(n) for n in named})
            if stray:
                raise ValueError(f"kernel_sweep: vendor_label names {', '.join(stray)}, which no vendor library is "
                                 f"(libraries: {', '.join(sorted(named)) or 'none'})")
            labels: dict[str | None, Any] = dict(label)
        else:
            labels = {lib: label for lib in [None, *named]} if label is not None else {}
        return cls(table, labels)

    def __bool__(self) -> bool:
        return bool(self.by_dialect)

    def entries(self, dialect: str | None) -> Mapping[str | None, Any]:
        return self.by_dialect.get(dialect, self.by_dialect.get(ANY_DIALECT, {}))

    def libraries(self, dialect: str | None) -> list[str | None]:
        return list(self.entries(dialect))

    def function(self, dialect: str | None, library: str | None, resolve: Callable[[Any], Any]) -> Any:
        entries = self.entries(dialect)
        if library not in entries:
            have = ", ".join(str(k or "vendor") for k in entries) or "none"
            raise ValueError(f"no vendor item {library or 'vendor'!r} for the {dialect} dialect; it has: {have}")
        return resolve(entries[library])


def takes_out(function: Any) -> bool:
    """Whether a vendor call names ``out`` (it writes the outputs in place)."""
    takes = Takes.of(function)
    return takes is not None and OUT in takes.keyword


def out_value(tensors: list[Any]) -> Any:
    return tensors[0] if len(tensors) == 1 else tuple(tensors)


def label_of(table: VendorTable, library: str | None, function: Any,
             values: Mapping[str, Any], positional: list[Any], where: str) -> str:
    given = table.labels.get(library)
    if given is None:
        return f"{getattr(function, '__module__', None) or '?'}.{getattr(function, '__name__', repr(function))}"
    if not callable(given):
        return str(given)
    return str(bound_call(named_what("vendor_label", given), given, values, positional, where)())


def vendor_run(table: VendorTable, library: str | None, function: Any, values: Mapping[str, Any],
               inputs: Any, timed: bool, checked: bool, where: str) -> tuple[Callable[[], Any], str]:
    """The vendor item's callable (``timed``: the call alone; else the call whose output the
    check judges: written into the outputs) and its label."""
    writes = takes_out(function)
    offered = {**values, OUT: out_value(inputs.outputs.tensors)} if writes else dict(values)
    run = bound_call(named_what("vendor", function), function, offered, inputs.inputs, where)
    label = label_of(table, library, function, offered, inputs.inputs, where)
    if not checked:
        label += " (speed reference, not checked)"
    if timed or writes or not checked:
        return run, label
    return (lambda: inputs.write_outputs(run())), label
