"""Where a night's time went: per shard and phase, and per compile item.

Contract: ``cost_markdown(documents)``: a markdown section ("" where nothing is known) of each
run's wall time by phase and the compile items' cost by part, costliest first; words from a
file escaped.  ``item_costs(documents)``: ``<kind>-<backend>-<case id>`` -> seconds, what
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
