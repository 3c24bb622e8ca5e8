"""What a model-guided search did per problem, read back from a run's records.

Contract (pure): ``search_accounts(records)``: one ``SearchAccount`` per (backend, problem) the
search (harness/search/live.py) ran on, from its records' ``search`` notes; ``words()`` one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .table import format_seconds

KEY = "search"


@dataclass(frozen=True)
class SearchAccount:
    backend: str
    problem: str
    configs: int
    measured: int
    skipped: int
    stopped_because: str
    measured_device_s: float
    exhaustive_projection_s: float
    learned_from: int = 0

    def words(self) -> str:
        earlier = f" after learning from {self.learned_from} timed configs of earlier runs" if self.learned_from else ""
        return (f"search (model) {self.backend} · {self.problem}: measured {self.measured} of {self.configs} configs{earlier}, "
                f"{self.skipped} skipped with their predicted rank; stopped: {self.stopped_because}; device timing "
                f"{format_seconds(self.measured_device_s)}, the exhaustive sweep's projected "
                f"{format_seconds(self.exhaustive_projection_s)} (a projection: this run's mean seconds per measured config x {self.configs}, and the vendor's once)")

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def is_search_skip(record: Mapping[str, Any]) -> bool:
    note = record.get(KEY)
    return record.get("status") == "skipped" and isinstance(note, Mapping) and note.get("chosen") is None


def search_accounts(records: Iterable[Mapping[str, Any]]) -> list[SearchAccount]:
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        note = record.get(KEY)
        if not isinstance(note, Mapping) or not isinstance(note.get("problem"), Mapping):
            continue
        key = (str(record.get("backend", "?")), str(note["problem"].get("problem_id", "?")))
        entry = seen.setdefault(key, {"problem": note["problem"], "measured": 0, "skipped": 0})
        entry["skipped" if note.get("chosen") is None else "measured"] += 1
    out = []
    for (backend, problem), entry in seen.items():
        account = entry["problem"]
        out.append(SearchAccount(
            backend=backend, problem=problem, configs=int(account.get("configs") or 0), measured=entry["measured"],
            skipped=entry["skipped"], stopped_because=str(account.get("stopped_because") or "?"),
            measured_device_s=float(account.get("measured_device_s") or 0.0),
            exhaustive_projection_s=float(account.get("exhaustive_projection_s") or 0.0),
            learned_from=int(account.get("learned_from") or 0),
        ))
    return out
