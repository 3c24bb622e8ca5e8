"""Re-measure what a nightly comparison flagged, once, before calling it a regression.

Contract: ``flagged_nodeids(comparison, new)`` lists the pytest node ids to run again: every
gating item (SLOWER, FAILED) and, for a gating whole-run shift, every item of that group.
``substitute(document, remeasured, nodeids)`` returns a copy of the run's document with those
items' entries (timed benchmarks and failed/skipped records) replaced by the re-measured
run's; items the re-measurement did not produce are dropped from the copy, so a second
comparison can only confirm or withdraw the first one's regressions.  (tilelang's perf bot
learned this from single-outlier false alarms.)
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

from tlbench.harness.core.record import EXTRA_KEY
from tlbench.harness.results.comparison import RunComparison
from tlbench.harness.results.store import Results, suite_of


def _nodeid(rec: dict[str, Any]) -> str | None:
    return rec.get("fullname") or rec.get("nodeid")


def flagged_nodeids(comparison: RunComparison, new: Results) -> list[str]:
    keys = {(i.key.suite, i.key.backend, i.key.kind, i.key.case_id) for i in comparison.regressions}
    groups = {(s.suite, s.backend, s.kind) for s in comparison.gating_shifts}
    out: list[str] = []
    for rec in (*new.records, *new.failed):
        key = (suite_of(rec), rec.get("backend"), rec.get("kind"), rec.get("case_id"))
        if key in keys or key[:3] in groups:
            nodeid = _nodeid(rec)
            if nodeid and nodeid not in out:
                out.append(nodeid)
    return out


def _bench_nodeid(bench: dict[str, Any]) -> str | None:
    return bench.get("fullname")


def substitute(document: dict[str, Any], remeasured: dict[str, Any], nodeids: Iterable[str]) -> dict[str, Any]:
    ids = set(nodeids)
    out = copy.deepcopy(document)
    out["benchmarks"] = [b for b in out.get("benchmarks", []) if _bench_nodeid(b) not in ids]
    out["benchmarks"] += [b for b in remeasured.get("benchmarks", []) if _bench_nodeid(b) in ids]
    top = out.get(EXTRA_KEY)
    again = remeasured.get(EXTRA_KEY) or {}
    if top is not None:
        for kind in ("failed", "skipped"):
            kept = [r for r in top.get(kind) or [] if r.get("nodeid") not in ids]
            top[kind] = kept + [r for r in again.get(kind) or [] if r.get("nodeid") in ids]
        top["remeasured"] = sorted(ids)
    return out
