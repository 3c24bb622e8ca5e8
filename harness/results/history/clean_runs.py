"""Which stored runs may stand for a commit's performance, and why the others may not.

Contract (pure reads): ``run_quality(conn)``: a ``RunQuality`` per run id, its label and why it
is no clean run of a commit (no commit, a dirty tree, test-only settings, a partial run, or a
failed item whose device worker was restarted).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class RunQuality:
    run_id: int
    label: str
    reasons: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.reasons


def _label(row: sqlite3.Row) -> str:
    commit = (row["commit_id"] or "no commit")[:10] + ("+dirty" if row["commit_dirty"] else "")
    return f"run {row['run_id']} ({(row['started_at'] or '?')[:16]}, {commit})"


def run_quality(conn: sqlite3.Connection) -> dict[int, RunQuality]:
    faults: dict[int, int] = {}
    test_notes: dict[int, str] = {}
    for item in conn.execute("SELECT run_id, status, record_json FROM items WHERE status IN ('failed', 'timed')"):
        try:
            record = json.loads(item["record_json"])
        except (TypeError, ValueError):  # an unreadable stored row: the readers leave it out and say so
            continue
        if not isinstance(record, dict):
            continue
        if item["status"] == "failed" and ((record.get("worker") or {}).get("restarted")):
            faults[item["run_id"]] = faults.get(item["run_id"], 0) + 1
        marked = [n for n in record.get("notes") or () if "TEST-ONLY" in str(n)]
        if marked and item["run_id"] not in test_notes:
            test_notes[item["run_id"]] = str(marked[0]).split(":")[0]
    out = {}
    for row in conn.execute("SELECT * FROM runs ORDER BY run_id"):
        run_id, reasons = int(row["run_id"]), []
        if row["commit_id"] is None:
            reasons.append("no commit recorded")
        elif row["commit_dirty"]:
            reasons.append("dirty tree (uncommitted changes)")
        if row["test_only"]:
            reasons.append("test-only settings: " + ", ".join(json.loads(row["test_only"])))
        if run_id in test_notes:
            reasons.append(f"a record says {test_notes[run_id]}")
        if row["partial"]:
            reasons.append("partial run (recovered from an interrupted journal)")
        if run_id in faults:
            reasons.append(f"device fault or hang: the worker was restarted ({faults[run_id]} failed items)")
        out[run_id] = RunQuality(run_id, _label(row), tuple(reasons))
    return out
