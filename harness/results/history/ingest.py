"""Put results files into the history database, idempotently.

Contract: ``add_results(conn, results, annotate, allow_partial)`` stores one ``Results`` as one
run keyed by ``run_hash`` in ONE write transaction (already stored: ``skipped``; every median
0 s: ``unusable``; partial: only with ``allow_partial``), each item under the testbed of the
machine that measured it; a merged run and its shards are stored once.  ``add_files`` /
``import_dir`` do it per file, reporting a file that is no results file.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ...core.stats import summarize
from .schema import write_transaction
from ..files.record_fields import Outcome, Record
from ..files.store import Results, ResultsError, load_results, testbed_of
from ..compare.pairing import problem_of
from ..report.partial_note import partial_lines
from ..files.shard_merge import shard_document

Annotate = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]  # (record, device info) -> record


@dataclass(frozen=True)
class AddOutcome:
    path: str
    status: str  # "added" | "skipped" (already stored) | "unusable"
    run_id: int | None = None
    items: int = 0
    detail: str = ""

    def line(self) -> str:
        if self.status == "added":
            return f"added {self.path}: run {self.run_id}, {self.items} items{self.detail}"
        if self.status == "skipped":
            return f"skipped {self.path}: " + (self.detail or f"already in history as run {self.run_id}")
        return f"not added {self.path}: {self.detail}"


def run_hash(document: Mapping[str, Any]) -> str:
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def host_of(document: Mapping[str, Any], shard: str | None = None) -> str:
    """``<CPU model> x<logical CPUs>`` of the machine that ran the document (of its shard ``shard``,
    for a merged run), from pytest-benchmark's ``machine_info.cpu``; '' when not recorded."""
    machine = document.get("machine_info") or {}
    own = (((machine.get("tlbench") or {}).get("shards") or {}).get(shard) or {}) if shard else {}
    cpu = own.get("cpu") if isinstance(own.get("cpu"), dict) else machine.get("cpu")
    if not isinstance(cpu, dict):
        return ""
    brand, count = str(cpu.get("brand_raw") or "").strip(), cpu.get("count")
    return f"{brand or 'unknown CPU'} x{count}" if brand or count else ""


def testbed_key(document: Mapping[str, Any], backend: str, shard: str | None = None) -> tuple[str, ...]:
    """The testbed columns of a run's backend (of one shard's records, for a merged run), in
    ``TestbedRow.key()`` order."""
    bed = testbed_of(shard_document(document, shard), backend)
    return (backend, bed.target or "", bed.accelerator or "", bed.driver or "", bed.tilelang or "", bed.vendor_library or "",
            host_of(document, shard))


def _testbed_id(conn: sqlite3.Connection, values: tuple[str, ...]) -> int:
    conn.execute(
        "INSERT OR IGNORE INTO testbeds (backend, target, accelerator, driver, tilelang, vendor_library, host) VALUES (?,?,?,?,?,?,?)",
        values,
    )
    row = conn.execute(
        "SELECT testbed_id FROM testbeds WHERE backend=? AND target=? AND accelerator=? AND driver=? AND tilelang=? "
        "AND vendor_library=? AND host=?",
        values,
    ).fetchone()
    return int(row[0])


def shard_key(document: Mapping[str, Any]) -> str | None:
    """A shard file's identity (run digest, shard, date, input seed), or None for a file that is not one shard."""
    top = document.get("tlbench") or {}
    shard = top.get("shard")
    if not isinstance(shard, dict) or not shard.get("run_digest"):
        return None
    return f"{shard['run_digest']}|{shard.get('label')}|{document.get('datetime')}|{top.get('input_seed')}"


def covered_shards(document: Mapping[str, Any]) -> list[str]:
    """The shard keys a merged run was made of ([] for a run that is not a merge)."""
    sharded = (document.get("tlbench") or {}).get("sharded")
    if not isinstance(sharded, dict) or not sharded.get("run_digest"):
        return []
    return [f"{sharded['run_digest']}|{s.get('label')}|{s.get('datetime')}|{s.get('input_seed')}"
            for s in sharded.get("shards") or () if isinstance(s, dict)]


def _stored_merges(conn: sqlite3.Connection) -> dict[int, set[str]]:
    out = {}
    for run_id, covers in conn.execute("SELECT run_id, covers FROM runs WHERE covers IS NOT NULL"):
        try:
            out[int(run_id)] = set(json.loads(covers))
        except (TypeError, ValueError):
            continue
    return out


def _merged_holding(merges: dict[int, set[str]], keys: list[str]) -> list[int] | None:
    """The stored merged runs holding every one of ``keys``, or None when one is not held."""
    holders = []
    for key in keys:
        found = next((run for run, covers in merges.items() if key in covers), None)
        if found is None:
            return None
        holders.append(found)
    return sorted(set(holders))


def _drop_runs(conn: sqlite3.Connection, run_ids: list[int]) -> None:
    for run_id in run_ids:
        conn.execute("DELETE FROM items WHERE run_id = ?", (run_id,))
        conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))


def _item_row(item: Record | Outcome) -> dict[str, Any]:
    """The ``items`` row of ``item``; a failed or skipped one has its node id as ``fullname``."""
    samples = item.samples_s if isinstance(item, Record) else None
    throughput = item.throughput if isinstance(item, Record) else {}
    problem, label = problem_of(item), item.label  # a labelled case (-best): its problem's
    written = item.raw if isinstance(item, Record) else {**item.raw,
                                                         "fullname": item.fullname or item.nodeid}
    return {
        "suite": item.suite, "kind": item.kind, "case_id": item.case_id,
        "problem": problem.removesuffix(f"-{label}") if label else problem,
        "status": "timed" if isinstance(item, Record) else item.status,
        "median_s": summarize(samples).median if samples else None,
        "samples_json": json.dumps(samples) if samples else None,
        "tflops": throughput.get("tflops"), "pct_of_peak": throughput.get("pct_of_peak"),
        "arithmetic_intensity": throughput.get("arithmetic_intensity"),
        "kernel_hash": item.kernel_hash,
        "record_json": json.dumps(written, sort_keys=True),
    }


def _unreadable(results: Results) -> list[str]:
    """The timed items no reader of the history can use: their median is 0 s (all-zero samples)."""
    return [r.case_id for r in results.timed if not summarize(r.samples_s).median > 0]


def _refusal(results: Results, allow_partial: bool) -> tuple[str | None, str]:
    """(why the run is not stored, or None; what its added line adds)."""
    zero = _unreadable(results)
    if results.timed and len(zero) == len(results.timed):
        return (f"every timed item's median is 0 s (all-zero samples, e.g. {zero[0]}): history show, compare --history and "
                "the dashboard leave such rows out, so nothing of it could be read; re-run the suite"), ""
    partial = [ln.removeprefix("note: ") for ln in partial_lines(results)]
    if partial and not allow_partial:
        return (f"{partial[0]}; finish the run (--tlbench-resume JOURNAL, or merge every shard) and add that, or pass "
                "--allow-partial to store it labelled partial"), ""
    detail = f" ({len(zero)} item(s) with all-zero samples stored but left out by every reader, e.g. {zero[0]})" if zero else ""
    if partial:
        detail += f" (PARTIAL, stored labelled partial: {partial[0]})"
    return None, detail


def add_results(conn: sqlite3.Connection, results: Results, annotate: Annotate | None = None,
                allow_partial: bool = True) -> AddOutcome:
    refused, said = _refusal(results, allow_partial)
    if refused:
        return AddOutcome(results.path, "unusable", detail=refused)
    doc = results.document
    digest = run_hash(doc)
    commit = doc.get("commit_info") or {}
    infos = ((doc.get("machine_info") or {}).get("tlbench") or {}).get("backends") or {}
    with write_transaction(conn):
        known = conn.execute("SELECT run_id FROM runs WHERE run_hash=?", (digest,)).fetchone()
        if known is not None:
            return AddOutcome(results.path, "skipped", int(known[0]))
        own_key, covers = shard_key(doc), covered_shards(doc)
        merges = _stored_merges(conn) if own_key or covers else {}
        holders = _merged_holding(merges, [own_key] if own_key else covers) if own_key or covers else None
        if holders:
            what = "a shard of a merged run" if own_key else "a merge of shards"
            return AddOutcome(results.path, "skipped", holders[0],
                              detail=f"{what} already stored in run(s) {', '.join(map(str, holders))}")
        replaced = [int(r[0]) for r in conn.execute(
            f"SELECT run_id FROM runs WHERE shard_key IN ({','.join('?' * len(covers))})", covers)] if covers else []
        replaced += [run for run, held in merges.items() if covers and held <= set(covers)]  # a smaller merge of these shards
        _drop_runs(conn, replaced)
        commit_id = commit.get("id")
        versioned = commit_id not in (None, "unknown", "unversioned")
        top = doc.get("tlbench") or {}
        cur = conn.execute(
            "INSERT INTO runs (run_hash, source, started_at, added_at, commit_id, commit_branch, commit_dirty, scope, "
            "test_only, partial, shard_key, covers) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (digest, str(results.path), doc.get("datetime"),
             _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
             str(commit_id) if versioned else None, commit.get("branch"),
             int(bool(commit.get("dirty"))) if versioned else None, top.get("scope"),
             json.dumps(list(top["test_only"])) if top.get("test_only") else None,
             1 if top.get("partial") else 0, own_key, json.dumps(covers) if covers else None))
        run_id = int(cur.lastrowid)
        beds: dict[tuple[str, str | None], int] = {}
        stored, duplicates = 0, 0
        for item in (*results.timed, *results.failures, *results.skips):
            backend, shard = item.backend, item.shard
            if (backend, shard) not in beds:  # a merged sharded run: each record on its own shard's testbed
                beds[(backend, shard)] = _testbed_id(conn, testbed_key(doc, backend, shard))
            if annotate is not None and isinstance(item, Record):
                own = ((shard_document(doc, shard).get("machine_info") or {}).get("tlbench") or {}).get("backends") or infos
                item = Record.of(annotate(dict(item.raw), own.get(backend) or {}))
            row = {**_item_row(item), "run_id": run_id, "testbed_id": beds[(backend, shard)]}
            columns = ", ".join(row)
            placeholders = ", ".join(f":{k}" for k in row)
            cur = conn.execute(f"INSERT OR IGNORE INTO items ({columns}) VALUES ({placeholders})", row)
            stored += cur.rowcount
            duplicates += 1 - cur.rowcount
    detail = (f" ({duplicates} duplicate items kept once)" if duplicates else "") + said
    if replaced:
        detail += f" (a merged run: its shards or a smaller merge of them, stored before as run(s) {', '.join(map(str, replaced))}, removed)"
    return AddOutcome(results.path, "added", run_id, stored, detail)


def add_files(conn: sqlite3.Connection, paths: Iterable[str | Path], annotate: Annotate | None = None,
              allow_partial: bool = True) -> list[AddOutcome]:
    out = []
    for path in paths:
        try:
            results = load_results(path)
        except ResultsError as exc:
            out.append(AddOutcome(str(path), "unusable", detail=str(exc)))
            continue
        out.append(add_results(conn, results, annotate, allow_partial))
    return out


RESULTS_SUFFIXES = (".json", ".json.gz")


def results_files(folder: str | Path) -> list[Path]:
    """Every ``*.json`` and ``*.json.gz`` below ``folder``, in name order (the history's ``runs/``
    outputs included)."""
    root = Path(folder)
    return sorted(p for p in root.rglob("*.json*") if p.is_file() and p.name.endswith(RESULTS_SUFFIXES))


def import_dir(conn: sqlite3.Connection, folder: str | Path, annotate: Annotate | None = None) -> list[AddOutcome]:
    root = Path(folder)
    if not root.is_dir():
        raise ResultsError(f"{root}: not a folder; import-dir takes a folder of results JSON files (e.g. results/)")
    return add_files(conn, results_files(root), annotate)
