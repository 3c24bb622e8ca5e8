"""Where a night's time went: per shard and phase, and per compile item.

Contract: ``cost_markdown(documents)`` reads results documents (a night's per-suite files, or
one merged from shards) and returns a markdown section, or "" where nothing is known:
- per run (each shard of a merged file: ``tlbench.sharded.shards[*].phases_s``; else the file's
  own ``tlbench.phases_s``): its wall time and its parts (start-up to the end of collection,
  each backend's compile setup, rounds and instruction count);
- the compile items' cost in all, by part: the timed rounds (wall), the one cold build per item
  (lowering + device compiler), the callgrind count of its lowering, and the count children's
  own time (valgrind's start, imports and the uncounted warm-up: a child's wall less the
  counts it made);
- a table of every compile item, costliest first: its rounds, cold build, count, instructions
  counted (median), shard.
Numbers are wall seconds as the records hold them; nothing is measured here.  Every word taken
from a file (case ids, backends, shard labels, run and phase names) is escaped as a markdown
table cell (report_markdown's ``md_cell``): the summary is rendered as HTML.
``item_costs(documents)`` is each item's cost in such a file (``<kind>-<backend>-<case id>`` -> a
timed item's rounds, cold build and count, in seconds; a skipped one's 0): what
``--tlbench-shard-costs`` deals shards by.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Mapping, Sequence

from ...core.record import EXTRA_KEY
from ..report.report_markdown import md_cell


def _records(documents: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for document in documents:
        for bench in document.get("benchmarks") or []:
            record = (bench.get("extra_info") or {}).get(EXTRA_KEY)
            if isinstance(record, dict) and record.get("kind") == "compile":
                out.append(record)
    return out


def _runs(documents: Iterable[Mapping[str, Any]]) -> list[tuple[str, dict[str, float]]]:
    runs = []
    for document in documents:
        top = document.get(EXTRA_KEY) or {}
        shards = (top.get("sharded") or {}).get("shards")
        if shards:
            runs += [(f"shard {s.get('label')}", s.get("phases_s") or {}) for s in shards]
        elif top.get("phases_s"):
            suites = sorted({str(r.get("suite") or "") for r in _records([document])} - {""})
            runs.append((", ".join(suites) or "run", top["phases_s"]))
    return runs


def _item_cost(record: Mapping[str, Any]) -> tuple[float, float, float]:
    counted = record.get("instructions") or {}
    return (sum(record.get("samples_s") or []), float((record.get("cold_build_once") or {}).get("wall_s") or 0.0),
            float(counted.get("count_wall_s") or 0.0))


def cost_markdown(documents: Sequence[Mapping[str, Any]]) -> str:
    runs, records = _runs(documents), _records(documents)
    if not runs and not records:
        return ""
    out = ["### Where the night's time went", ""]
    if runs:
        out += ["| run | wall | parts |", "|---|---|---|"]
        for name, phases in runs:
            parts = ", ".join(f"{k} {v:.0f} s" for k, v in phases.items() if k != "session")
            wall = phases.get("session")
            out.append(f"| {md_cell(name)} | {f'{wall:.0f} s' if wall is not None else '?'} | {md_cell(parts or '-')} |")
        out.append("")
    if records:
        rounds, builds, counts = (sum(c[k] for c in map(_item_cost, records)) for k in range(3))
        children: dict[tuple[Any, ...], dict[str, Any]] = {}
        for r in records:
            counted = r.get("instructions") or {}
            if counted.get("child_wall_s") is not None:
                key = (r.get("shard"), r.get("backend"), counted.get("count_child", counted.get("child_wall_s")))
                child = children.setdefault(key, {"wall": float(counted["child_wall_s"]), "counts": 0.0})
                child["counts"] += float(counted.get("count_wall_s") or 0.0)
        overhead = sum(max(0.0, c["wall"] - c["counts"]) for c in children.values())
        counted_n = sum(1 for r in records if (r.get("instructions") or {}).get("lowering"))
        out += [f"{len(records)} compile items ({counted_n} with instruction counts): timed rounds {rounds:.0f} s, "
                f"one cold build each {builds:.0f} s, callgrind counts {counts:.0f} s, and {len(children)} count "
                f"child(ren)' own start-up and warm-up {overhead:.0f} s.", ""]
        rows = sorted(records, key=lambda r: -sum(_item_cost(r)))
        out += ["<details><summary>every compile item, costliest first (wall seconds)</summary>", "",
                "| item | rounds | cold build | count | instructions (median) | shard |", "|---|---|---|---|---|---|"]
        for r in rows:
            timed, build, count = _item_cost(r)
            lowering = (r.get("instructions") or {}).get("lowering") or []
            counted = f"{statistics.median(lowering):,.0f}" if lowering else "-"
            item = md_cell(f"{r.get('backend')} {r.get('case_id')}")
            out.append(f"| {item} | {timed:.1f} | {build:.1f} | {count:.1f} | {counted} | {md_cell(r.get('shard') or '-')} |")
        out += ["", "</details>", ""]
    return "\n".join(out) + "\n"


def item_costs(documents: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for document in documents:
        top = document.get(EXTRA_KEY) or {}
        for record in top.get("skipped") or []:  # skipped before anything compiled (a budget, a pruned config): free
            if isinstance(record, dict) and record.get("case_id"):
                out[f"{record.get('kind')}-{record.get('backend')}-{record['case_id']}"] = 0.0
        for bench in document.get("benchmarks") or []:
            record = (bench.get("extra_info") or {}).get(EXTRA_KEY)
            if isinstance(record, dict) and record.get("case_id"):
                out[f"{record.get('kind')}-{record.get('backend')}-{record['case_id']}"] = round(sum(_item_cost(record)), 3)
    return out
