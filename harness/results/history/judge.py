"""Judge a new run against its history: the rolling best (or median) of the last N runs.

Contract: ``compare_with_history(conn, new, policy, thresholds)`` finds each backend's stored
testbed (none: ``CompareError``), judges per item the best or median of its last
``policy.last_n`` runs against the new run (``compare.compare_runs``) and detects steps; a stored
row the store would refuse is left out and ``skipped`` says why.
"""

from __future__ import annotations

import sqlite3
import statistics
from dataclasses import dataclass, replace
from typing import Any, Mapping

from ..compare.compare import compare_runs
from ..compare.comparison import CompareError, ItemKey, RunComparison
from ..compare.judgement import Thresholds
from .ingest import run_hash, testbed_key
from .query import Point, Series, TestbedRow, record, series, testbeds
from .steps import Step, detect_steps
from ..compare.pairing import item_key
from ..files.store import Results, ResultsError, parse_results, testbed_of

STATISTICS = ("best", "median")


@dataclass(frozen=True)
class HistoryPolicy:
    statistic: str = "best"  # "best" | "median"
    last_n: int = 5

    def __post_init__(self) -> None:
        if self.statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got {self.statistic!r}")
        if self.last_n < 1:
            raise ValueError(f"last_n must be at least 1, got {self.last_n}")


@dataclass(frozen=True)
class StepFound:
    key: ItemKey
    step: Step
    at: str  # the run where the new level starts ("run 12 (...)" or "the new run")


@dataclass(frozen=True)
class HistoryComparison:
    comparison: RunComparison
    references: Mapping[ItemKey, str]  # item -> which run was the reference, of how many
    steps: tuple[StepFound, ...]
    policy: HistoryPolicy
    testbeds: tuple[TestbedRow, ...]
    skipped: tuple[str, ...] = ()  # stored rows left out, one line each


def testbed_for(conn: sqlite3.Connection, new: Results, backend: str) -> TestbedRow:
    bed = testbed_of(new.document, backend)
    wanted = testbed_key(new.document, backend)  # the host CPU too: another host is another testbed
    stored = testbeds(conn)
    for row in stored:
        if row.key() == wanted:
            return row
    known = "; ".join(f"[{r.testbed_id}] {r.describe()}" for r in stored) or "none"
    raise CompareError(
        f"no history for {new.name}'s {backend} testbed ({bed.describe()}, lib {bed.vendor_library}, host {wanted[-1] or '?'}); stored testbeds: "
        f"{known}. Add runs of this testbed with `tlbench history add`"
    )


def _reference(points: list[Point], statistic: str) -> Point:
    ordered = sorted(points, key=lambda p: p.median_s)
    if statistic == "best":
        return ordered[0]
    return ordered[(len(ordered) - 1) // 2]  # the lower median: an actual run, never an average


def _base_document(beds: Mapping[str, TestbedRow], chosen: list[Mapping[str, Any]], failed: list[Mapping[str, Any]]) -> dict:
    infos = {
        backend: {"backend": backend, "target": bed.target or None, "accelerator": bed.accelerator or None,
                  "driver": bed.driver or None, "tilelang": bed.tilelang or None,
                  "torch": bed.vendor_library or None, "torch_npu": bed.vendor_library or None}
        for backend, bed in beds.items()
    }
    version = (chosen or failed or [{}])[0].get("schema_version", 1)
    return {
        "machine_info": {"tlbench": {"schema_version": version, "backends": infos}},
        "commit_info": {},
        "benchmarks": [{"name": r.get("name"), "fullname": r.get("fullname"), "extra_info": {"tlbench": r}} for r in chosen],
        "tlbench": {"schema_version": version, "backends": sorted(beds), "failed": failed, "skipped": []},
    }


def _refused(beds: Mapping[str, TestbedRow], key: ItemKey, rec: Mapping[str, Any], timed: bool) -> str | None:
    """Why the results store would refuse this stored record as ``key``'s (None: it reads it)."""
    if (rec.get("backend"), rec.get("kind"), rec.get("case_id")) != (key.backend, key.kind, key.case_id):
        return "its record is another item's"
    try:
        parse_results(_base_document(beds, [rec] if timed else [], [] if timed else [rec]), "stored row")
    except (ResultsError, ValueError, TypeError, KeyError, AttributeError) as exc:
        return str(exc).replace("stored row: ", "", 1)[:200]
    return None


def _readable(beds: Mapping[str, TestbedRow], key: ItemKey, window: list[Point], statistic: str,
              skipped: list[str] | None) -> tuple[Point, dict[str, Any]] | None:
    """The window's reference run and its record.  With ``skipped`` (a list to say so in) each
    chosen row is checked by the results store, and a row it refuses is left out and the
    reference chosen again from the rest; without, the row is taken as it is (the fast path:
    the whole base run is checked at once, and only a refusal there checks row by row)."""
    window = list(window)
    while window:
        ref = _reference(window, statistic)
        rec = record(ref)
        why = _refused(beds, key, rec, timed=True) if skipped is not None else None
        if why is None:
            return ref, rec
        skipped.append(f"run {ref.run_id} {key.kind}-{key.case_id}: {why}; left out")
        window.remove(ref)
    return None


def _pick(conn: sqlite3.Connection, beds: Mapping[str, TestbedRow], wanted: set[ItemKey], exclude: str,
          policy: HistoryPolicy, skipped: list[str], checked: bool):
    """(reference records, failed records, which run each item's reference is, the series)."""
    chosen, failed, references, found_series = [], [], {}, []
    for backend, bed in beds.items():
        for s in series(conn, testbed_ids=[bed.testbed_id], skipped=skipped):
            key = ItemKey(s.suite, backend, s.kind, s.case_id)
            if key not in wanted:
                continue
            found_series.append((key, s))
            history = [p for p in s.points if p.run_hash != exclude]
            timed = [p for p in history if p.status == "timed" and p.median_s]
            window = timed[-policy.last_n:]
            found = _readable(beds, key, window, policy.statistic, skipped if checked else None) if window else None
            if found is not None:
                chosen.append(found[1])
                references[key] = f"{policy.statistic} of {len(window)} runs: {found[0].label}"
            elif history and history[-1].status == "failed":
                why = _refused(beds, key, record(history[-1]), timed=False) if checked else None
                if why is None:
                    failed.append(record(history[-1]))
                else:
                    skipped.append(f"run {history[-1].run_id} {key.kind}-{key.case_id}: {why}; left out")
    return chosen, failed, references, found_series


def compare_with_history(
    conn: sqlite3.Connection,
    new: Results,
    policy: HistoryPolicy | None = None,
    thresholds: Thresholds | None = None,
    source: str = "history",
    allow_method_mismatch: bool = False,
) -> HistoryComparison:
    policy = policy or HistoryPolicy()
    thresholds = thresholds or Thresholds()
    beds = {backend: testbed_for(conn, new, backend) for backend in new.backends}
    exclude = run_hash(new.document)
    wanted = {item_key(r) for r in (*new.timed, *new.failures, *new.skips)}
    new_medians = {item_key(r): statistics.median(r.samples_s) for r in new.timed}
    skipped: list[str] = []
    chosen, failed, references, found_series = _pick(conn, beds, wanted, exclude, policy, skipped, checked=False)
    name = f"{source} ({policy.statistic} of last {policy.last_n})"
    try:
        base = parse_results(_base_document(beds, chosen, failed), name)
    except ResultsError:  # a stored row the store refuses: find it, leave it out, say so
        skipped = []
        chosen, failed, references, found_series = _pick(conn, beds, wanted, exclude, policy, skipped, checked=True)
        base = None
    if not chosen and not failed:
        unread = f" ({len(skipped)} stored row(s) left out, unreadable or no usable measurement)" if skipped else ""
        raise CompareError(f"the history holds none of the items of {new.name} on its testbed(s){unread}: nothing to compare")
    base = base or parse_results(_base_document(beds, chosen, failed), name)
    steps = []
    for key, s in found_series:
        timed = [p for p in s.points if p.run_hash != exclude and p.status == "timed" and p.median_s]
        steps += _steps(key, s, timed, new_medians.get(key), thresholds.min_effect_for(s.suite))
    comparison = compare_runs(base, new, thresholds, allow_method_mismatch=allow_method_mismatch)
    if skipped:
        comparison = replace(comparison, notes=comparison.notes + (
            f"history: {len(skipped)} stored row(s) left out, unreadable or no usable measurement (first: {skipped[0]})",))
    return HistoryComparison(comparison, references, tuple(steps), policy, tuple(beds.values()), tuple(skipped))


def _steps(key: ItemKey, s: Series, timed: list[Point], new_median: float | None, min_effect: float) -> list[StepFound]:
    values = [p.median_s for p in timed] + ([new_median] if new_median else [])
    labels = [p.label for p in timed] + (["the new run"] if new_median else [])
    if not values or min(values) <= 0:
        return []
    return [StepFound(key, step, labels[step.index]) for step in detect_steps(values, min_effect)]
