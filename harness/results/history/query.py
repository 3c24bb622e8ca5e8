"""Read the history database: testbeds, runs, and each case's series over runs.

Contract (pure reads): ``testbeds(conn, selector)``; ``series(conn, case_glob, testbed_ids,
kind, skipped)``: one ``Series`` per testbed, suite, kind and case id, one ``Point`` per run,
oldest first (an unreadable row, or a timed one without a positive median, is left out and named
in ``skipped``); ``runs_of(conn, testbed_id)``; ``record(point)``: its stored record;
``point.typed``: that record as a ``Record`` (its ids, where it lacks them, the row's own).
"""

from __future__ import annotations

import fnmatch
import json
import math
import sqlite3
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable

from ..files.record_fields import Record


RUN_ORDER = "COALESCE(r.started_at, r.added_at), r.run_id"


@dataclass(frozen=True)
class TestbedRow:
    testbed_id: int
    backend: str
    target: str
    accelerator: str
    driver: str
    tilelang: str
    vendor_library: str
    host: str = ""  # "AMD EPYC x2": the host CPU and its logical CPUs ('' : not recorded)

    def describe(self) -> str:
        parts = [self.backend, self.accelerator or "no accelerator", f"tilelang {self.tilelang or '?'}"]
        if self.driver:
            parts.append(f"driver {self.driver}")
        if self.vendor_library:
            parts.append(f"lib {self.vendor_library}")
        parts.append(f"host {self.host}" if self.host else "host not recorded")
        return ", ".join(parts)

    def matches(self, selector: str) -> bool:
        if selector.isdigit():
            return int(selector) == self.testbed_id
        text = " ".join([self.backend, self.target, self.accelerator, self.driver, self.tilelang, self.vendor_library, self.host])
        return all(word in text.lower() for word in selector.lower().split())

    def key(self) -> tuple[str, ...]:
        """The testbed as a tuple for matching a new run's testbed (``testbed_key``)."""
        return (self.backend, self.target, self.accelerator, self.driver, self.tilelang, self.vendor_library, self.host)


@dataclass(frozen=True)
class Point:
    run_id: int
    run_hash: str
    started_at: str | None
    commit_id: str | None
    commit_dirty: bool | None
    status: str  # timed | failed | skipped
    median_s: float | None
    samples_s: tuple[float, ...]
    tflops: float | None
    pct_of_peak: float | None
    record_json: str = field(repr=False)
    parsed: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def typed(self) -> Record:
        return Record.of(record(self))

    @property
    def label(self) -> str:
        commit = (self.commit_id or "no commit")[:10] + ("+dirty" if self.commit_dirty else "")
        return f"run {self.run_id} ({(self.started_at or '?')[:16]}, {commit})"


@dataclass
class Series:
    testbed: TestbedRow
    suite: str
    kind: str
    case_id: str
    problem: str
    points: list[Point] = field(default_factory=list)

    @property
    def timed(self) -> list[Point]:
        return [p for p in self.points if p.status == "timed" and p.median_s]

    @cached_property
    def is_vendor(self) -> bool:
        """A vendor library item, as its record tells (no kernel config, ``pairing.is_vendor``: a
        family may have several, e.g. one per attention backend)."""
        return (any(record(p).get("config") is None for p in self.points[:1])
                or self.case_id.endswith("-vendor"))


def record(point: Point) -> dict[str, Any]:
    return point.parsed if point.parsed else json.loads(point.record_json)


def testbeds(conn: sqlite3.Connection, selector: str | None = None) -> list[TestbedRow]:
    rows = [TestbedRow(*tuple(r)) for r in conn.execute(
        "SELECT testbed_id, backend, target, accelerator, driver, tilelang, vendor_library, host FROM testbeds ORDER BY testbed_id")]
    return [r for r in rows if selector is None or r.matches(selector)]


def run_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def runs_of(conn: sqlite3.Connection, testbed_id: int) -> list[sqlite3.Row]:
    return list(conn.execute(
        f"SELECT DISTINCT r.* FROM runs r JOIN items i ON i.run_id = r.run_id WHERE i.testbed_id = ? ORDER BY {RUN_ORDER}",
        (testbed_id,),
    ))


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _unreadable(row: sqlite3.Row) -> tuple[str | None, dict[str, Any], tuple[float, ...]]:
    """(why the row cannot be used or None, its record, its samples)."""
    try:
        rec = json.loads(row["record_json"])
    except (TypeError, ValueError):
        return "its record is not valid JSON", {}, ()
    if not isinstance(rec, dict):
        return "its record is not a JSON object", {}, ()
    try:
        samples = json.loads(row["samples_json"]) if row["samples_json"] else []
    except (TypeError, ValueError):
        return "its samples are not valid JSON", rec, ()
    if not isinstance(samples, list) or not all(_finite(v) for v in samples):
        return "its samples are not a list of numbers", rec, ()
    if row["status"] == "timed" and not (_finite(row["median_s"]) and row["median_s"] > 0):
        return f"timed, but its median is {row['median_s']!r} (all-zero or missing samples)", rec, ()
    return None, rec, tuple(float(v) for v in samples)


def series(
    conn: sqlite3.Connection,
    case_glob: str | None = None,
    testbed_ids: Iterable[int] | None = None,
    kind: str | None = None,
    skipped: list[str] | None = None,
) -> list[Series]:
    beds = {t.testbed_id: t for t in testbeds(conn)}
    wanted = set(testbed_ids) if testbed_ids is not None else set(beds)
    rows = conn.execute(
        "SELECT i.testbed_id, i.suite, i.kind, i.case_id, i.problem, i.status, i.median_s, i.samples_json, i.tflops, "
        "i.pct_of_peak, i.record_json, r.run_id, r.run_hash, r.started_at, r.commit_id, r.commit_dirty "
        f"FROM items i JOIN runs r ON r.run_id = i.run_id ORDER BY {RUN_ORDER}"
    )
    out: dict[tuple, Series] = {}
    for row in rows:
        if row["testbed_id"] not in wanted or (kind and row["kind"] != kind):
            continue
        if case_glob and not fnmatch.fnmatchcase(row["case_id"], case_glob):
            continue
        why, rec, samples = _unreadable(row)
        if why is not None:
            if skipped is not None:
                skipped.append(f"run {row['run_id']} {row['kind']}-{row['case_id']}: {why}; left out")
            continue
        key = (row["testbed_id"], row["suite"], row["kind"], row["case_id"])
        if row["testbed_id"] not in beds:
            continue
        for name, value in (("backend", beds[row["testbed_id"]].backend), ("kind", row["kind"]), ("case_id", row["case_id"])):
            rec.setdefault(name, value)  # ingest always writes them; a row edited by hand may lack them
        if key not in out:
            out[key] = Series(beds[row["testbed_id"]], row["suite"], row["kind"], row["case_id"], row["problem"])
        out[key].points.append(Point(
            run_id=row["run_id"], run_hash=row["run_hash"], started_at=row["started_at"],
            commit_id=row["commit_id"],
            commit_dirty=None if row["commit_dirty"] is None else bool(row["commit_dirty"]),
            status=row["status"], median_s=row["median_s"], samples_s=samples,
            tflops=row["tflops"] if _finite(row["tflops"]) else None,
            pct_of_peak=row["pct_of_peak"] if _finite(row["pct_of_peak"]) else None,
            record_json=row["record_json"], parsed=rec))
    return sorted(out.values(), key=lambda s: (s.testbed.testbed_id, s.suite, s.kind, s.case_id))
