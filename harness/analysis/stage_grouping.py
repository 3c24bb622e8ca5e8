"""The stage report's groups of records: a ``TileGroup`` per (backend, kernel, problem, tile).

Contract: ``build_stage_report(bench_json, traits_of=None) -> StageReport``: per tile one
``StageLine`` per ``T.Pipelined`` variant, the pipeline model, the problem's vendor item and a
``StageVerdict``; kernels with no num_stages / loop form axis are listed as left out. Raises
``StageReportError`` (one line saying what to do) when no record sweeps num_stages.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable, Mapping

from ..core.backend_traits import TraitsCatalog
from ..core.family import FamilyCatalog
from ..core.record import EXTRA_KEY, records_of
from ..core.shard import placement
from ..results.files.store import testbed_of
from .stage_fit import with_model
from .stage_plan import (basis_value, item_status, k_loop, k_steps_per_block, onchip_use, path_label,
                         pipelined_buffers, problem_sort, ratio_of)
from .stage_types import STAGE_KEYS, StageLine, StageReport, StageReportError, TileGroup
from .stage_verdict import group_verdict


def build_stage_report(bench_json: Mapping[str, Any], traits_of: Callable[[str], Any] | None = None) -> StageReport:
    """``traits_of``: backend name -> its ``BackendTraits`` (default: the installed backends')."""
    traits_of = traits_of or TraitsCatalog.from_entry_points().get
    if not isinstance(bench_json, Mapping) or not isinstance(bench_json.get("benchmarks"), list):
        raise StageReportError("not pytest-benchmark output (no 'benchmarks' list); pass the file written by --benchmark-json")
    catalog = FamilyCatalog.from_entry_points()
    items = _stage_items(bench_json, catalog)
    vendors = items.pop(VENDOR, [])
    ignored = [f"{name}: its config has no num_stages axis" for name in items.pop(None, [])]
    if not items:
        raise StageReportError(
            "no item of this file sweeps num_stages (no kernel config with a num_stages or loop form axis); "
            "sweep num_stages in the suite (e.g. num_stages=[1, 2, 3, 4] in a kernel_sweep, or suites/*/test_stages.py) "
            "and pass its --benchmark-json"
        )
    by_problem: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for rec in vendors:
        if rec.get("kind") == "device" and rec.get("status", "ok") == "ok" and (rec.get("summary") or {}).get("median"):
            by_problem.setdefault(_vendor_key(rec), []).append(rec)
    groups = [_build_group(bench_json, key, recs, traits_of(key[0]), catalog, by_problem) for key, recs in items.items()]
    groups.sort(key=lambda g: (g.backend, g.kernel, problem_sort(g.problem), g.tile))
    return StageReport(groups=tuple(groups), ignored=tuple(ignored), vendors=len(vendors))


VENDOR = "vendor"  # the _stage_items key of vendor library items (no kernel config)


def _vendor_key(rec: Mapping[str, Any]) -> tuple[str, str]:
    return str(rec.get("backend", "?")), json.dumps(rec.get("problem") or {}, sort_keys=True, default=str)


def _vendor_of(first: Mapping[str, Any],
               by_problem: Mapping[tuple[str, str], list[Mapping[str, Any]]]) -> Mapping[str, Any] | None:
    found = by_problem.get(_vendor_key(first)) or []
    same = [v for v in found if placement(v) == placement(first)] or found
    return min(same, key=lambda v: v["summary"]["median"]) if same else None


def _with_loop_form(rec: Mapping[str, Any], catalog: FamilyCatalog) -> Mapping[str, Any]:
    """A config naming no loop form (a described kernel's) gets its family's stage point as ``loop_form`` /
    ``num_stages``; the config as recorded stays under ``config_as_recorded``."""
    config = rec.get("config")
    if not isinstance(config, Mapping) or "loop_form" in config:
        return rec
    try:
        family = catalog.for_record(rec)
        stage = family.stage_point(family.config_from_dict(config))
    except (KeyError, TypeError, ValueError):
        return rec
    if stage.loop_form in ("", "none"):
        return rec
    return {**rec, "config": {**config, "loop_form": stage.loop_form, "num_stages": stage.num_stages},
            "config_as_recorded": config}


def _stage_items(doc: Mapping[str, Any], catalog: FamilyCatalog) -> dict[Any, list]:
    """Records (timed, failed, skipped) grouped by tile; key None: items with no config."""
    top = doc.get(EXTRA_KEY) or {}
    everything = [*records_of(dict(doc)), *(top.get("failed") or ()), *(top.get("skipped") or ())]
    groups: dict[Any, list] = {}
    for rec in (_with_loop_form(r, catalog) for r in everything):
        config = rec.get("config")
        if config is None and isinstance(rec, Mapping) and rec.get("problem") is not None:
            groups.setdefault(VENDOR, []).append(rec)  # a vendor library item: the reference of its problem's tiles
            continue
        if not isinstance(config, Mapping) or "loop_form" not in config:
            groups.setdefault(None, []).append(rec.get("case_id") or rec.get("name") or "?")
            continue
        # canonical JSON: a family's config or problem may hold lists and objects (not hashable as they are)
        tile = json.dumps({k: v for k, v in config.items() if k not in STAGE_KEYS}, sort_keys=True, default=str)
        problem = json.dumps(rec.get("problem") or {}, sort_keys=True, default=str)
        key = (rec.get("backend", "?"), rec.get("kernel", "?"), rec.get("label"), problem, tile)
        groups.setdefault(key, []).append(rec)
    return groups


def _build_group(doc: Mapping[str, Any], key: tuple, recs: list[Mapping[str, Any]], traits: Any,
                 catalog: FamilyCatalog, vendors: Mapping[tuple[str, str], list[Mapping[str, Any]]]) -> TileGroup:
    backend, kernel, label, _, _ = key
    chosen = _one_record_per_variant(recs)
    first = chosen[0]
    config, problem = first["config"], first.get("problem") or {}
    rows = [_row(r) for r in chosen]
    basis = "device" if any(r.measured_s for r in rows) else "model" if any(r.modeled_cycles for r in rows) else "none"
    rows = _with_speedups(rows, basis)
    family = catalog.for_record(first)
    typed_problem = family.problem_from_dict(problem)
    typed_config = family.config_from_dict(first.get("config_as_recorded", config))
    iterations = k_steps_per_block(family, typed_problem, typed_config, chosen)
    group = TileGroup(
        backend=backend, testbed=testbed_of(dict(doc), backend, traits).describe(),
        kernel=kernel + (f" [{label}]" if label else ""), problem=family.problem_label(typed_problem),
        tile=family.stage_point(typed_config).tile, iterations=iterations, basis=basis, rows=tuple(rows),
        scheduled=any((r.get("plan") or {}).get("schedule_model") for r in chosen),
    )
    vendor = _vendor_of(first, vendors)
    if vendor is not None:
        group = replace(group, vendor_s=float(vendor["summary"]["median"]), vendor_case=vendor.get("case_id"))
    group = with_model(group, chosen, traits.load_pipes)
    return replace(group, verdict=group_verdict(group, chosen))


def _one_record_per_variant(recs: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """A device record beats a compile record, a timed one beats a failed or skipped one; ordered auto (by
    num_stages), manual, serial."""

    def rank(rec: Mapping[str, Any]) -> tuple[bool, bool]:
        return (rec.get("status", "ok") == "ok", rec.get("kind") == "device")

    best: dict[tuple, Mapping[str, Any]] = {}
    for rec in recs:
        variant = (rec["config"]["loop_form"], rec["config"].get("num_stages"))
        if variant not in best or rank(rec) > rank(best[variant]):
            best[variant] = rec
    order = {"auto": 0, "manual": 1, "serial": 2}
    return sorted(best.values(), key=lambda r: (order.get(r["config"]["loop_form"], 3), r["config"].get("num_stages") or 0))


def _row(rec: Mapping[str, Any]) -> StageLine:
    config, plan = rec["config"], rec.get("plan") or {}
    loop = k_loop(plan)
    model = plan.get("schedule_model") or {}
    scope, used, limit = onchip_use(plan)
    timed = rec.get("status", "ok") == "ok"
    return StageLine(
        label=str(config["num_stages"]) if config["loop_form"] == "auto" else config["loop_form"],
        loop_form=config["loop_form"], num_stages=config.get("num_stages"), case_id=rec.get("case_id", "?"),
        status=item_status(rec), path=path_label(plan),
        versions="/".join(str(b.get("versions")) for b in pipelined_buffers(plan)) or "-",
        measured_s=(rec.get("summary") or {}).get("median") if timed and rec.get("kind") == "device" else None,
        method=rec.get("method", "") if rec.get("kind") == "device" else "",
        modeled_cycles=model.get("modeled_cycles_per_core"), loop_cycles=loop.get("modeled_cycles"),
        ii_cycles=loop.get("ii"), onchip_scope=scope, onchip_bytes=used, onchip_limit=limit,
    )


def _with_speedups(rows: list[StageLine], basis: str) -> list[StageLine]:
    auto = {r.num_stages: basis_value(r, basis) for r in rows if r.loop_form == "auto"}
    return [replace(r, speedup_vs_1=ratio_of(auto.get(1), basis_value(r, basis)),
                    speedup_vs_0=ratio_of(auto.get(0), basis_value(r, basis))) for r in rows]
