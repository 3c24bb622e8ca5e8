"""The contracts between the harness and a kernel family: ``RecordFamily`` for reading records, and
``KernelFamily``, the running one that ``kernel_sweep``'s family implements.

Contract: ``FamilyCatalog.for_record`` finds a ``RecordFamily`` per record (a self-describing one
by its own words, else by the ``tlbench.families`` entry point of its ``family``; ``KeyError`` when
none reads it).  Optional ``KernelFamily`` members: harness/core/kernel_traits.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from . import described
from .budget import Scope, ScopeUse
from .cases import CaseIdParts, CheckResult, StagePoint
from .entry_points import load_group

FAMILY_GROUP = "tlbench.families"


@runtime_checkable
class RecordFamily(Protocol):
    name: str

    def problem_from_dict(self, data: Mapping[str, Any]) -> Any:
        """The typed problem of a record's ``problem`` dict (``asdict`` of the problem)."""

    def config_from_dict(self, data: Mapping[str, Any]) -> Any:
        """The typed config of a record's ``config`` dict."""

    def parse_case_id(self, case_id: str) -> CaseIdParts:
        """Split a case id of this family back into its parts."""

    def stage_point(self, config: Any) -> StagePoint:
        """The config's place on the pipeline-depth axis (for stage reports and plots)."""

    def problem_label(self, problem: Any) -> str:
        """A short human label of the problem for reports (``8192x8192x8192 f16``)."""

    def loop_trips(self, problem: Any, config: Any) -> int | None:
        """Steps of the pipelined loop one block runs (the K loop of a GEMM tile), or None."""


@runtime_checkable
class KernelFamily(RecordFamily, Protocol):
    def validate(self, problem: Any, config: Any, dialect: str) -> str | None:
        """Why this config cannot build this problem for ``dialect``, or None."""

    def mma_tiles(self, problem: Any, config: Any) -> list[tuple[int, int]]:
        """Output tiles (M, N) whose warp partition a backend may check before compiling ([]: none)."""

    def flops(self, problem: Any) -> int:
        """Floating-point operations of one run of the problem."""

    def bytes_moved(self, problem: Any) -> int:
        """Compulsory DRAM traffic of one run."""

    def footprint(self, problem: Any, config: Any, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        """On-chip bytes per scope the body for ``dialect`` allocates (``Scope.use``); (): not known."""

    def build(self, problem: Any, config: Any, dialect: str) -> Any:
        """The kernel (a TileLang PrimFunc) for a backend's dialect (``cuda``, ``ascend``)."""

    def make_inputs(self, problem: Any, seed: int, device: Any) -> Any:
        """Fresh random inputs (never zeros) and the output buffer, on ``device``."""

    def kernel_args(self, inputs: Any) -> tuple[Any, ...]:
        """The kernel's arguments, in order, from ``make_inputs``'s result."""

    def output(self, inputs: Any) -> Any:
        """The output buffer in ``inputs`` (poisoned with NaN before a checked run)."""

    def check(self, inputs: Any, problem: Any) -> CheckResult:
        """Compare the output in ``inputs`` (poisoned before the run) with the reference."""


@dataclass
class FamilyCatalog:
    """Families by name: the entry points (loaded on first use) plus any registered directly.  A record without
    a ``family`` key is read by the one family whose problem type accepts its problem dict."""

    loaders: dict[str, Callable[[], Any]] = field(default_factory=dict)
    _loaded: dict[str, RecordFamily] = field(default_factory=dict)

    @classmethod
    def from_entry_points(cls) -> "FamilyCatalog":
        return cls(loaders=load_group(FAMILY_GROUP))

    def register(self, family: RecordFamily) -> None:
        self._loaded[family.name] = family

    @property
    def names(self) -> list[str]:
        return sorted({*self.loaders, *self._loaded})

    def get(self, name: str) -> RecordFamily:
        if name not in self._loaded:
            if name not in self.loaders:
                raise KeyError(f"unknown kernel family {name!r}; known: {', '.join(self.names) or 'none'}")
            self._loaded[name] = self.loaders[name]()
        return self._loaded[name]

    def for_record(self, record: Mapping[str, Any]) -> RecordFamily:
        name = record.get("family")
        if name and described.described(record):
            return described.family_for_record(record)
        if name:
            return self.get(name)
        problem = record.get("problem") or {}
        matches = [f for f in map(self.get, self.names) if _accepts(f, problem)]
        if len(matches) != 1:
            raise KeyError(f"record {record.get('case_id', '?')}: no 'family' key and "
                           f"{'no' if not matches else 'more than one'} family reads its problem {sorted(problem)}")
        return matches[0]


def _accepts(family: RecordFamily, problem: Mapping[str, Any]) -> bool:
    try:
        family.problem_from_dict(problem)
    except (TypeError, ValueError, KeyError):
        return False
    return True
