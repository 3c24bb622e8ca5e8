"""Re-measure what a nightly comparison flagged, beside its in-run reference, before gating on it.

Contract: ``plan_remeasure(comparison, new) -> RemeasurePlan``: each gating SLOWER or FAILED
item with its reference (its vendor items, else up to ``REFERENCE_ITEMS`` of its group; fewer
than ``MIN_RUN_REFERENCE_ITEMS``: ``unpaired``), and each gating shift's group.
``restrict(document, keys)``: a copy with only those items.  ``combine(first, again, plan)``: the
first comparison with the re-measured verdicts; only a reproduced regression gates.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from ...core.record import EXTRA_KEY
from ..compare.comparison import ItemKey, RunComparison
from ..compare.judgement import Verdict
from ..compare.pairing import MIN_RUN_REFERENCE_ITEMS, is_vendor, item_key, problem_of
from ..files.record_fields import Item, Record
from ..files.store import Results, suite_of

REFERENCE_ITEMS = 7  # other items re-measured beside a flagged item with no vendor item: 8 in all, a spread of their own


@dataclass(frozen=True)
class RemeasurePlan:
    nodeids: tuple[str, ...] = ()  # to run again, in one pytest process
    keys: frozenset[ItemKey] = frozenset()  # every item re-measured (flagged and reference)
    flagged: frozenset[ItemKey] = frozenset()  # the flagged items the re-measurement decides
    groups: frozenset[tuple[str, str, str]] = frozenset()  # groups of gating shifts, re-measured whole
    unpaired: tuple[str, ...] = ()  # one line per flagged item left unmeasured (its first verdict stands)


def _key(rec: Mapping[str, Any]) -> ItemKey:
    """A timed record's (``fullname``) or a failed/skipped record's (``nodeid``) key, as written."""
    return ItemKey(suite_of(rec), str(rec.get("backend")), str(rec.get("kind")), str(rec.get("case_id")))


def _bench_key(bench: Mapping[str, Any]) -> ItemKey:
    rec = (bench.get("extra_info") or {}).get(EXTRA_KEY) or {}
    return _key({**rec, "fullname": bench.get("fullname")})


def _references(key: ItemKey, rec: Item, timed: tuple[Record, ...]) -> list[Record] | None:
    """The records to re-measure beside ``rec`` (its in-run reference), or None: it has none."""
    group = [r for r in timed if (r.suite, r.backend, r.kind) == (key.suite, key.backend, key.kind)
             and item_key(r) != key]
    problem = problem_of(rec)
    if key.kind == "device":
        vendors = [r for r in group if is_vendor(r) and problem_of(r) == problem]
        if vendors:
            return vendors
    kernels = sorted((r for r in group if not is_vendor(r)), key=lambda r: (problem_of(r) != problem, r.case_id))
    return None if len(kernels) < MIN_RUN_REFERENCE_ITEMS else kernels[:REFERENCE_ITEMS]


def plan_remeasure(comparison: RunComparison, new: Results) -> RemeasurePlan:
    flagged = {i.key for i in comparison.regressions}
    groups = {(s.suite, s.backend, s.kind) for s in comparison.gating_shifts}
    by_key = {item_key(r): r for r in (*new.timed, *new.failures)}
    chosen: dict[ItemKey, Item] = {}
    unpaired = []
    for key in sorted(flagged, key=lambda k: (k.suite, k.backend, k.kind, k.case_id)):
        rec = by_key.get(key)
        if rec is None:
            continue  # MISSING: nothing of it in the new run to measure again
        references = _references(key, rec, new.timed)
        if references is None:
            unpaired.append(f"{key.kind}-{key.backend}-{key.case_id}: not re-measured - its group has fewer than "
                            f"{MIN_RUN_REFERENCE_ITEMS} other items to re-measure it against; its first verdict stands")
            continue
        for r in (rec, *references):
            chosen[item_key(r)] = r
    for rec in (*new.timed, *new.failures):
        if (rec.suite, rec.backend, rec.kind) in groups:
            chosen[item_key(rec)] = rec
    nodeids = tuple(dict.fromkeys(n for n in (r.fullname or r.nodeid for r in chosen.values()) if n))
    decided = frozenset(k for k in flagged if k in chosen)
    return RemeasurePlan(nodeids, frozenset(chosen), decided, frozenset(groups), tuple(unpaired))


def restrict(document: Mapping[str, Any], keys: Iterable[ItemKey]) -> dict[str, Any]:
    wanted = set(keys)
    out = copy.deepcopy({k: v for k, v in document.items() if k != "benchmarks"})
    out["benchmarks"] = [copy.deepcopy(b) for b in document.get("benchmarks", []) if _bench_key(b) in wanted]
    top = out.get(EXTRA_KEY)
    if isinstance(top, dict):
        for kind in ("failed", "skipped"):
            top[kind] = [r for r in top.get(kind) or [] if _key(r) in wanted]
        top.pop("partial", None)  # a restriction is deliberate: it holds what it was asked to
        if isinstance(top.get("backends"), list):  # the re-run is of the night's backends; the restriction of the keys' own
            top["backends"] = [b for b in top["backends"] if b in {k.backend for k in wanted}]
    machine = (out.get("machine_info") or {}).get(EXTRA_KEY)
    if isinstance(machine, dict) and isinstance(machine.get("backends"), dict):
        machine["backends"] = {b: info for b, info in machine["backends"].items() if b in {k.backend for k in wanted}}
    return out


def combine(first: RunComparison, again: RunComparison, plan: RemeasurePlan) -> RunComparison:
    second = {(i.key, i.metric): i for i in again.items if i.verdict is not Verdict.MISSING}
    items = tuple(second.get((i.key, i.metric), i) if i.key in plan.flagged else i for i in first.items)
    again_shifts = {(s.suite, s.backend, s.kind): s for s in again.shifts}
    shifts = tuple(again_shifts.get((s.suite, s.backend, s.kind), replace(s, gates=False, words=f"{s.words} (not reproduced "
                   "when re-measured)")) if (s.suite, s.backend, s.kind) in plan.groups and s.gates else s for s in first.shifts)
    notes = first.notes + tuple(plan.unpaired)
    return replace(first, items=items, shifts=shifts, notes=notes)
