"""Autotune: the fastest correct config per problem, measured, kept in results/best_configs.json.

Contract: ``pick_best(records, devices)``: one ``BestEntry`` per (backend, device, problem), the
lowest median with its vendor ratio; ``update_best_file`` merges entries (same key replaced);
``load_best`` reads a suite's winning config back, preferring the same device.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ...core.cases import Case
from ...core.record_reader import ReadRecord, RecordReader


SCHEMA_VERSION = 1


@dataclass(frozen=True)
class BestEntry:
    backend: str
    device: str
    problem_id: str
    problem: dict[str, Any]
    config: dict[str, Any]
    case_id: str
    median_s: float
    tflops: float | None
    vs_vendor: float | None  # vendor median / this median (>1: faster than the vendor)
    candidates: int

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.backend, self.device, self.problem_id)


def pick_best(records: Iterable[Mapping[str, Any]], devices: dict[str, str], reader: RecordReader | None = None) -> list[BestEntry]:
    reader = reader or RecordReader()
    groups: dict[tuple[str, str], list[tuple[dict[str, Any], ReadRecord]]] = {}
    vendor: dict[tuple[str, str], float] = {}
    for rec in records:
        if rec.get("kind") != "device":
            continue
        read = reader.read(rec)
        key = (rec["backend"], read.problem_id)
        if rec.get("config") is None:
            vendor[key] = rec["summary"]["median"]
        elif (rec.get("check") or {}).get("ok"):
            groups.setdefault(key, []).append((rec, read))
    best = []
    for (backend, problem_id), recs in sorted(groups.items()):
        winner, read = min(recs, key=lambda pair: pair[0]["summary"]["median"])
        median = winner["summary"]["median"]
        # a labelled replay (the ``best`` item) is recorded under its config's own id
        case_id = Case(read.problem, read.config).case_id if read.label else winner["case_id"]
        ref = vendor.get((backend, problem_id))
        best.append(BestEntry(
            backend=backend, device=devices.get(backend) or "unknown", problem_id=problem_id,
            problem=winner["problem"], config=winner["config"], case_id=case_id, median_s=median,
            tflops=(winner.get("throughput") or {}).get("tflops"), candidates=len(recs),
            vs_vendor=ref / median if ref else None))
    return best


def update_best_file(path: str | Path, entries: Iterable[BestEntry], tilelang_version: str | None,
                     date: str | None = None) -> dict[str, Any]:
    """``date``: when the entries were measured (ISO 8601; None: now)."""
    path = Path(path)
    doc = json.loads(path.read_text()) if path.exists() else {"schema_version": SCHEMA_VERSION, "entries": []}
    by_key = {(e["backend"], e["device"], e["problem_id"]): e for e in doc.get("entries", [])}
    stamp = date or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    for entry in entries:
        by_key[entry.key] = {**asdict(entry), "tilelang": tilelang_version, "date": stamp}
    doc = {"schema_version": SCHEMA_VERSION, "entries": sorted(by_key.values(), key=lambda e: (e["backend"], e["problem_id"], e["device"]))}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def load_best(path: str | Path, backend: str, problem: Any, device: str | None = None) -> dict[str, Any] | None:
    path = Path(path)
    if not path.exists():
        return None
    entries = [
        e for e in json.loads(path.read_text()).get("entries", []) if e["backend"] == backend and e["problem_id"] == problem.problem_id
    ]
    if device is not None:
        entries = [e for e in entries if e["device"] == device] or entries
    return None if not entries else dict(entries[0]["config"])
