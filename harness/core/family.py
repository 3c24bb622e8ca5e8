"""The contracts between the harness and a kernel family: a small public one for reading records,
and the running one that ``kernel_sweep`` implements.

Contract:
- ``RecordFamily`` (public, small): what a report, a comparison or a stage grouping asks of a record's family - its
  typed problem and config back from the record's dicts, the case-id parser, the config's place on the
  pipeline-depth axis (``StagePoint``), a problem label and the loop's trip count.  ``FamilyCatalog`` finds one per
  record: a record that describes itself (harness/core/described.py: every kernel declared through ``kernel_sweep``)
  is read by the ``DescribedFamily`` of its own words, with nothing registered; a record of an older family (no
  ``described_as``) by the ``tlbench.families`` entry point of its ``family`` name (tlbench ships two such readers,
  for GEMM and flash-attention records written before the built-in suites moved onto ``kernel_sweep``).
- ``KernelFamily`` (the running side, a ``RecordFamily`` plus: validation, body builder per dialect, inputs,
  reference check, FLOPs and bytes, on-chip footprint per scope): the contract between the harness and
  ``kernel_sweep``'s family (harness/sweep_api/family.py), which every kernel - the built-in suites' and a
  user's - is declared through.  It is not a second front door: a capability a kernel needs is added to
  ``kernel_sweep`` for everyone.  The tests' toy families (tests/toys/) implement it to prove the harness names no
  family.

The harness keeps only what every family shares (``Case``, sweeps, records, comparison) and reaches a case's family
through ``case.problem.family``.  A case id is ``<problem_id>[-<label>]-<config_id>`` for every family, and
``parse_case_id`` splits one back (``CaseIdParts``) so that analysis never guesses where a problem id ends.  Both
value types live in harness/core/cases.py.

Optional running members, asked through harness/core/kernel_traits.py (defaults where absent):
``kernel_traits(problem, config, dialect)`` (loop form, stages, threads, cores, tilelang pass configs and
``out_idx``, the modules whose source is the body), ``vendor_call(case, inputs, dialect, timed)`` (the vendor item's
callable and label), and a ``dialect`` keyword on ``make_inputs`` / ``check``.
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
        """Why this config cannot build this problem for ``dialect`` (the body would refuse it, or lower it
        wrongly), or None."""

    def mma_tiles(self, problem: Any, config: Any) -> list[tuple[int, int]]:
        """Output tiles (M, N) of the matrix multiplies whose warp partition a backend may check before compiling
        ([]: leave it to the compiler)."""

    def flops(self, problem: Any) -> int:
        """Floating-point operations of one run of the problem."""

    def bytes_moved(self, problem: Any) -> int:
        """Compulsory DRAM traffic of one run."""

    def footprint(self, problem: Any, config: Any, dialect: str, scopes: Sequence[Scope]) -> tuple[ScopeUse, ...]:
        """On-chip bytes per scope that the body for ``dialect`` allocates, against the capacities of the backend's
        ``scopes`` (``Scope.use``); () for a dialect it does not know the buffers of."""

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
    """Families by name: the ``tlbench.families`` entry points (loaded on first use) plus any registered directly
    (tests).  ``for_record`` finds the family of a JSON record: by its ``family`` key, else (records written before
    that key existed) the one family whose problem type accepts the record's problem dict.  A record that describes
    itself (harness/core/described.py: a kernel a suite declared through the generic path) is read by the
    ``DescribedFamily`` of its name and its own words, whatever the entry points name."""

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
            raise KeyError(
                f"record {record.get('case_id', '?')}: no 'family' key and "
                f"{'no' if not matches else 'more than one'} family reads its problem {sorted(problem)}"
            )
        return matches[0]


def _accepts(family: RecordFamily, problem: Mapping[str, Any]) -> bool:
    try:
        family.problem_from_dict(problem)
    except (TypeError, ValueError, KeyError):
        return False
    return True
