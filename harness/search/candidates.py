"""What tlbench knows about a config before it measures it: the ``Candidate``.

Contract: ``candidate_from_record(record, reader, multiprocessors)`` keeps of a record only what
exists before any device time is spent, so the ranker and the search cannot read a time no oracle
handed them.  Raises ``ValueError`` on a record with no config (a vendor item).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..core.record_reader import RecordReader

STATIC_ROOFLINE_KEYS = ("peak_tflops", "bandwidth_tbps", "ridge_flop_per_byte", "bound", "dtype")
SERIAL_FORM = "serial"  # harness/core/loop_form.py: a plain T.serial loop, one buffer


@dataclass(frozen=True)
class Candidate:
    case_id: str
    config: Mapping[str, Any]
    problem: Mapping[str, Any]
    plan: Mapping[str, Any] = field(default_factory=dict)
    budget: Mapping[str, Any] = field(default_factory=dict)
    roofline: Mapping[str, Any] = field(default_factory=dict)
    loop_trips: int | None = None
    multiprocessors: int | None = None  # the device's SM (core) count, from its machine info

    @property
    def pipeline_kind(self) -> str:
        return str((self.plan.get("pipeline") or {}).get("kind") or "unknown")

    @property
    def depth(self) -> int:
        """Buffers in flight: the largest of the plan's buffer versions and the config's ``num_stages``; serial: 1."""
        if self.config.get("loop_form") == SERIAL_FORM:
            return 1
        versions = [b.get("versions") for b in self.plan.get("buffers") or [] if isinstance(b.get("versions"), int)]
        stages = self.config.get("num_stages")
        return max(1, *versions, stages if isinstance(stages, int) and not isinstance(stages, bool) else 1)

    @property
    def shared_fraction(self) -> float:
        """Bytes the plan puts in on-chip memory over its capacity (the largest scope's share)."""
        used = self.plan.get("bytes_per_scope") or {}
        limits = self.plan.get("limits") or {}
        shares = [used[s] / limits[s] for s in used if isinstance(used.get(s), (int, float)) and limits.get(s)]
        if not shares:
            scopes = (self.budget.get("scopes") or {}).values()
            shares = [s["needed"] / s["capacity"] for s in scopes
                      if s.get("capacity") and isinstance(s.get("needed"), (int, float))]
        return max(shares, default=0.0)

    @property
    def threads(self) -> int | None:
        value = self.plan.get("threads", self.config.get("threads"))
        return value if isinstance(value, int) else None

    @property
    def grid(self) -> int | None:
        value = (self.plan.get("features") or {}).get("grid")
        return value if isinstance(value, int) else None

    @property
    def modeled_cycles(self) -> float | None:
        """The plan's modeled cycles per core times the grid's waves over the cores (a model); None without one."""
        per_core = (self.plan.get("schedule_model") or {}).get("modeled_cycles_per_core")
        if not isinstance(per_core, (int, float)) or isinstance(per_core, bool) or per_core <= 0:
            return None
        waves = -(-self.grid // self.multiprocessors) if self.grid and self.multiprocessors else 1
        return float(per_core) * waves

    @property
    def machine_fill(self) -> float | None:
        """Share of the multiprocessors busy over the grid's waves (64 blocks on 132: 0.48); None if unknown."""
        if not self.grid or not self.multiprocessors:
            return None
        return self.grid / (-(-self.grid // self.multiprocessors) * self.multiprocessors)

    def categories(self) -> dict[str, str]:
        """Every config key's value and the plan's pipeline kind, as words (the learned part's one-hots)."""
        return {**{f"config.{k}": repr(v) for k, v in sorted(self.config.items())},
                "plan.pipeline": self.pipeline_kind, "plan.depth": str(self.depth)}


def candidate_from_record(record: Mapping[str, Any], reader: RecordReader | None = None,
                          multiprocessors: int | None = None) -> Candidate:
    if record.get("config") is None:
        raise ValueError(f"{record.get('case_id', '?')}: a record without a config is not a config of a sweep")
    trips = None
    if reader is not None and record.get("problem") is not None:
        read = reader.read(record)
        if read.config is not None:
            trips = read.family.loop_trips(read.problem, read.config)
    roof = record.get("roofline") or {}
    return Candidate(case_id=str(record["case_id"]), config=dict(record["config"]),
                     problem=dict(record.get("problem") or {}), plan=dict(record.get("plan") or {}),
                     budget=dict(record.get("budget") or {}),
                     roofline={k: roof[k] for k in STATIC_ROOFLINE_KEYS if k in roof},
                     loop_trips=trips if isinstance(trips, int) and trips > 0 else None,
                     multiprocessors=multiprocessors if isinstance(multiprocessors, int) and multiprocessors > 0
                     else None)
