"""The one typed reader of tlbench JSON records: analysis never reverse-parses ids or walks raw dicts.

Contract: ``RecordReader(catalog).read(record)`` returns a ``ReadRecord`` (identity, family, typed
problem and config (None: vendor), stage point, samples and the written sections; ``raw`` keeps
the dict).  A record no family can read raises ``KeyError`` naming the case id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .cases import VENDOR_SUFFIX
from .family import FamilyCatalog, RecordFamily, StagePoint


@dataclass(frozen=True)
class ReadRecord:
    backend: str
    kind: str
    case_id: str
    family: RecordFamily
    problem: Any
    config: Any | None
    label: str | None
    problem_id: str
    stage: StagePoint | None
    samples_s: tuple[float, ...]
    plan: Mapping[str, Any]
    throughput: Mapping[str, Any]
    check: Mapping[str, Any]
    summary: Mapping[str, Any]
    method: str | None
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @property
    def is_vendor(self) -> bool:
        return self.config is None

    @property
    def median(self) -> float | None:
        return self.summary.get("median")

    @property
    def tflops(self) -> float | None:
        return self.throughput.get("tflops")

    @property
    def modeled_cycles(self) -> float | None:
        """Cycles per core of the backend's schedule model (a model, never a time)."""
        value = (self.plan.get("schedule_model") or {}).get("modeled_cycles_per_core")
        return float(value) if isinstance(value, (int, float)) and value > 0 else None


@dataclass
class RecordReader:
    catalog: FamilyCatalog = field(default_factory=FamilyCatalog.from_entry_points)

    def read(self, record: Mapping[str, Any]) -> ReadRecord:
        family = self.catalog.for_record(record)
        problem = family.problem_from_dict(record["problem"])
        raw_config = record.get("config")
        vendor = raw_config is None or record.get("kernel") == VENDOR_SUFFIX
        config = None if vendor else family.config_from_dict(raw_config)
        return ReadRecord(
            backend=record.get("backend", "?"), kind=record.get("kind", "?"), case_id=record["case_id"], family=family,
            problem=problem, config=config, label=record.get("label"), problem_id=problem.problem_id,
            stage=None if config is None else family.stage_point(config),
            samples_s=tuple(record.get("samples_s") or ()), plan=record.get("plan") or {},
            throughput=record.get("throughput") or {}, check=record.get("check") or {},
            summary=record.get("summary") or {}, method=record.get("method"), raw=record)
