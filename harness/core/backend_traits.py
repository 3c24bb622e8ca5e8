"""What a backend knows that the harness shows or sets up, readable without its toolchain.

Contract: traits are any object with the members of ``BackendTraits``, importing neither tilelang
nor torch; ``TraitsCatalog`` loads them from the ``tlbench.traits`` entry points (else
``DefaultTraits``).  Optional members: ``runtime_warm_up`` (``"module:function"`` a device worker
calls as it starts), ``dialect``, ``measurement_method(record)`` (``{label: value}``; compare
refuses pairs that differ) and ``method_options``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from .entry_points import load_group

TRAITS_GROUP = "tlbench.traits"


@dataclass(frozen=True)
class BackendOption:
    """A command-line option a backend reads (through ``BackendOptions[dest]``)."""

    name: str  # "--tlbench-<backend>-<what>"
    dest: str
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None  # the values it accepts (None: any string)


@runtime_checkable
class BackendTraits(Protocol):
    name: str
    label: str  # legend and title text
    color: str  # one matplotlib colour for this backend's series
    machine_info_keys: tuple[str, ...]  # device_info keys copied into pytest-benchmark's machine_info
    options: tuple[BackendOption, ...]  # its command-line options (the plugin adds them)
    load_pipes: frozenset[str]  # schedule-model pipes whose copy tasks load operands for compute

    def plan_summary(self, plan: Mapping[str, Any]) -> str:
        """One table cell condensing a plan dict (pipeline, buffer versions, on-chip bytes)."""

    def testbed_fields(self, info: Mapping[str, Any]) -> dict[str, Any]:
        """``driver`` and ``vendor_library`` of this backend's device info (see results/store)."""

    def device_env(self, device: str) -> dict[str, str]:
        """Environment that pins a worker process to ``device`` (an id from ``device_ids``)."""

    def device_ids(self) -> list[str]:
        """Ids of the devices this host shows, for one pytest-xdist worker each ([] if none)."""

    def schedule_figure(self, records: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path | None:
        """A PNG of the compiler's schedule of one tile's records (``plan.schedule_model``), or None."""


@dataclass(frozen=True)
class DefaultTraits:
    """Traits of a backend that declares none: neutral colour, generic plan summary, no pinning."""

    name: str
    label: str = ""
    color: str = "#4c78a8"
    machine_info_keys: tuple[str, ...] = ()
    options: tuple[BackendOption, ...] = ()
    load_pipes: frozenset[str] = frozenset()
    method_options: tuple[str, ...] = ()

    def plan_summary(self, plan: Mapping[str, Any]) -> str:
        return generic_plan_summary(plan)

    def testbed_fields(self, info: Mapping[str, Any]) -> dict[str, Any]:
        return {"driver": info.get("driver"), "vendor_library": info.get("vendor_library")}

    def measurement_method(self, record: Mapping[str, Any]) -> dict[str, object]:
        return generic_measurement_method(record)

    def device_env(self, device: str) -> dict[str, str]:
        return {}

    def device_ids(self) -> list[str]:
        return []

    def schedule_figure(self, records: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path | None:
        return None


def generic_measurement_method(record: Mapping[str, Any]) -> dict[str, object]:
    """A timed record's ``method`` and ``l2_flush_bytes`` where present; {} for a compile record."""
    if record.get("kind") == "compile":
        return {}
    return {name: record[name] for name in ("method", "l2_flush_bytes") if record.get(name) is not None}


def generic_plan_summary(plan: Mapping[str, Any] | None) -> str:
    """``<pipeline kind> v<versions of pipelined buffers> <scope> <bytes> ...``."""
    if not plan:
        return "-"
    versions = "/".join(str(b.get("versions")) for b in plan.get("buffers", []) if (b.get("versions") or 1) > 1)
    scopes = " ".join(f"{scope} {used}" for scope, used in (plan.get("bytes_per_scope") or {}).items())
    return " ".join([str((plan.get("pipeline") or {}).get("kind", "?")), *([f"v{versions}"] if versions else []),
                     *([scopes] if scopes else [])])


@dataclass
class TraitsCatalog:
    loaders: dict[str, Callable[[], Any]] = field(default_factory=dict)
    _loaded: dict[str, BackendTraits] = field(default_factory=dict)

    @classmethod
    def from_entry_points(cls) -> "TraitsCatalog":
        return cls(loaders=load_group(TRAITS_GROUP))

    def register(self, traits: BackendTraits) -> None:
        self._loaded[traits.name] = traits

    def get(self, name: str) -> BackendTraits:
        if name not in self._loaded:
            loader = self.loaders.get(name)
            self._loaded[name] = loader() if loader is not None else DefaultTraits(name)
        return self._loaded[name]

    def all(self) -> list[BackendTraits]:
        return [self.get(n) for n in sorted({*self.loaders, *self._loaded})]
