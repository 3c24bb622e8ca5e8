"""Put results files into the history database, idempotently.

Contract: ``add_results(conn, results)`` stores one validated ``Results`` as one run, keyed
by ``run_hash`` (SHA-256 of its canonical JSON): a file already stored (under any name) is
reported as ``skipped`` and nothing changes; otherwise the run, its testbeds and every
item (timed, failed and skipped) go in within ONE write transaction, so a crash or a
concurrent writer never leaves half a run.  A merged sharded run (``tlbench merge``) is one
run whose records each go under the testbed of the machine that measured them (their
shard's device info), so a run over two kinds of machine has two testbeds.  ``add_files(conn, paths)`` does that per file
and ``import_dir(conn, folder)`` for every ``*.json`` and ``*.json.gz`` below a folder (as
``add`` reads both); a file that is not
tlbench results (``best_configs.json``) is reported with the reason, never fatal.
``annotate`` (optional) fills derived fields (``pct_of_peak`` ...) of records that lack
them; it gets a copy, and returns the record to store.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from tlbench.harness.core.stats import summarize
from tlbench.harness.results.history.schema import write_transaction
from tlbench.harness.results.store import Results, ResultsError, load_results, suite_of, testbed_of
from tlbench.harness.results.pairing import problem_of
from tlbench.harness.results.shard_merge import shard_document

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
            return f"skipped {self.path}: already in history as run {self.run_id}"
        return f"not added {self.path}: {self.detail}"


def run_hash(document: dict[str, Any]) -> str:
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _testbed_id(conn: sqlite3.Connection, document: dict[str, Any], backend: str) -> int:
    bed = testbed_of(document, backend)
    values = (backend, bed.target or "", bed.accelerator or "", bed.driver or "", bed.tilelang or "", bed.vendor_library or "")
    conn.execute(
        "INSERT OR IGNORE INTO testbeds (backend, target, accelerator, driver, tilelang, vendor_library) VALUES (?,?,?,?,?,?)",
        values,
    )
    row = conn.execute(
        "SELECT testbed_id FROM testbeds WHERE backend=? AND target=? AND accelerator=? AND driver=? AND tilelang=? "
        "AND vendor_library=?",
        values,
    ).fetchone()
    return int(row[0])


def _problem(rec: dict[str, Any]) -> str:
    """The problem id, without a case label (``-best``): a labelled case competes for its problem."""
    problem, label = problem_of(rec), rec.get("label")
    return problem[: -len(label) - 1] if label and problem.endswith(f"-{label}") else problem


def _item_row(rec: dict[str, Any], status: str) -> dict[str, Any]:
    samples = rec.get("samples_s") if status == "timed" else None
    throughput = rec.get("throughput") or {}
    return {
        "suite": suite_of(rec),
        "kind": rec["kind"],
        "case_id": rec["case_id"],
        "problem": _problem(rec),
        "status": status,
        "median_s": summarize(samples).median if samples else None,
        "samples_json": json.dumps(samples) if samples else None,
        "tflops": throughput.get("tflops"),
        "pct_of_peak": throughput.get("pct_of_peak"),
        "arithmetic_intensity": throughput.get("arithmetic_intensity"),
        "kernel_hash": rec.get("kernel_hash"),
        "record_json": json.dumps(rec, sort_keys=True),
    }


def _stored_records(results: Results) -> Iterable[tuple[dict[str, Any], str]]:
    for rec in results.records:
        yield rec, "timed"
    for rec in results.failed:
        yield {**rec, "fullname": rec.get("fullname") or rec.get("nodeid")}, "failed"
    for rec in results.skipped:
        yield {**rec, "fullname": rec.get("fullname") or rec.get("nodeid")}, "skipped"


def add_results(conn: sqlite3.Connection, results: Results, annotate: Annotate | None = None) -> AddOutcome:
    doc = results.document
    digest = run_hash(doc)
    commit = doc.get("commit_info") or {}
    infos = ((doc.get("machine_info") or {}).get("tlbench") or {}).get("backends") or {}
    with write_transaction(conn):
        known = conn.execute("SELECT run_id FROM runs WHERE run_hash=?", (digest,)).fetchone()
        if known is not None:
            return AddOutcome(results.path, "skipped", int(known[0]))
        commit_id = commit.get("id")
        top = doc.get("tlbench") or {}
        cur = conn.execute(
            "INSERT INTO runs (run_hash, source, started_at, added_at, commit_id, commit_branch, commit_dirty, scope, "
            "test_only, partial) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                digest,
                str(results.path),
                doc.get("datetime"),
                _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                None if commit_id in (None, "unknown", "unversioned") else str(commit_id),
                commit.get("branch"),
                None if commit_id in (None, "unknown", "unversioned") else int(bool(commit.get("dirty"))),
                top.get("scope"),
                json.dumps(list(top["test_only"])) if top.get("test_only") else None,
                1 if top.get("partial") else 0,
            ),
        )
        run_id = int(cur.lastrowid)
        beds: dict[tuple[str, str | None], int] = {}
        stored, duplicates = 0, 0
        for rec, status in _stored_records(results):
            backend, shard = rec["backend"], rec.get("shard")
            if (backend, shard) not in beds:  # a merged sharded run: each record on its own shard's testbed
                beds[(backend, shard)] = _testbed_id(conn, shard_document(doc, rec), backend)
            if annotate is not None and status == "timed":
                own = ((shard_document(doc, rec).get("machine_info") or {}).get("tlbench") or {}).get("backends") or infos
                rec = annotate(dict(rec), own.get(backend) or {})
            row = {**_item_row(rec, status), "run_id": run_id, "testbed_id": beds[(backend, shard)]}
            columns = ", ".join(row)
            placeholders = ", ".join(f":{k}" for k in row)
            cur = conn.execute(f"INSERT OR IGNORE INTO items ({columns}) VALUES ({placeholders})", row)
            stored += cur.rowcount
            duplicates += 1 - cur.rowcount
    detail = f" ({duplicates} duplicate items kept once)" if duplicates else ""
    return AddOutcome(results.path, "added", run_id, stored, detail)


def add_files(conn: sqlite3.Connection, paths: Iterable[str | Path], annotate: Annotate | None = None) -> list[AddOutcome]:
    out = []
    for path in paths:
        try:
            results = load_results(path)
        except ResultsError as exc:
            out.append(AddOutcome(str(path), "unusable", detail=str(exc)))
            continue
        out.append(add_results(conn, results, annotate))
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
