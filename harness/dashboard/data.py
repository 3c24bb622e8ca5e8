"""What the dashboard shows, read from the history database.  Data only; no HTML.

Contract (every function takes an ``open_history`` connection):
- ``trend_panels(conn, min_effect)``: per suite, one ``TrendPanel`` per (testbed, kind,
  case): its median per run (device time in ms, compile time in s; None where it failed),
  run labels, the level changes ``history.steps`` finds, and the minimum-effect band around
  the current level (the median of the runs since the last level change, x/÷ (1 + min_effect)):
  what moves less than the band is not a change the history calls one.
- ``stage_panels(conn)``: per testbed, the run with the widest num_stages sweep (3+ depths
  for one tile; among clean runs when there is one - ``history.clean_runs`` -, the newest on
  a tie): one curve per tile, num_stages -> measured throughput (TFLOP/s, or GB/s where the
  record's roofline calls the problem memory-bound) with the same run's vendor item as a
  reference line, or, for a testbed with no device time, modeled cycles per core (a model,
  labelled so; never mixed); the ``MAX_CURVES`` tiles with the best point are drawn (the panel
  says how many more were swept); the panel says when its run is not clean, and why.
- the best-config table is harness/dashboard/best.py's.
- ``schedule_groups(conn, limit)``: records with a compiler schedule model from the newest
  run that has them, grouped per (problem, tile) with num_stages >= 1, for the backend's
  schedule figure (``BackendTraits.schedule_figure``).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tlbench.harness.dashboard.svg import Band, Marker
from tlbench.harness.results.history.clean_runs import run_quality
from tlbench.harness.results.history.query import Point, Series, TestbedRow, record, series
from tlbench.harness.results.history.steps import detect_steps


MAX_CURVES = 6  # tiles drawn per stage panel: the best ones


@dataclass(frozen=True)
class TrendPanel:
    suite: str
    testbed: TestbedRow
    kind: str
    case_id: str
    unit: str
    values: tuple[float | None, ...]
    labels: tuple[str, ...]
    steps: tuple[Marker, ...]
    last: str
    band: Band | None = None


@dataclass(frozen=True)
class StagePanel:
    testbed: TestbedRow
    metric: str  # "throughput (measured)" | "modeled cycles/core (compiler schedule model, not a time)"
    unit: str
    run_label: str
    problem: str
    curves: tuple[tuple[str, tuple[tuple[float, float], ...]], ...]
    reference: tuple[str, float] | None = None  # (legend, value): the same run's vendor item
    not_clean: tuple[str, ...] = ()  # why the run shown is not a clean run of a commit (empty: it is)
    hidden_tiles: int = 0  # swept tiles not drawn (only the MAX_CURVES best are)


def _unit(kind: str) -> tuple[str, float]:
    return ("device time, ms", 1e3) if kind == "device" else ("compile time, s", 1.0)


def _short_label(point: Point) -> str:
    return f"#{point.run_id} {(point.started_at or '')[5:10]}"


def trend_panels(conn: sqlite3.Connection, min_effect: float = 0.05) -> dict[str, list[TrendPanel]]:
    out: dict[str, list[TrendPanel]] = defaultdict(list)
    for s in series(conn):
        unit, scale = _unit(s.kind)
        points = [p for p in s.points if p.status in ("timed", "failed")]
        if not any(p.status == "timed" for p in points):
            continue
        values = tuple(p.median_s * scale if p.status == "timed" and p.median_s else None for p in points)
        timed_idx = [i for i, v in enumerate(values) if v is not None]
        found = detect_steps([values[i] for i in timed_idx], min_effect)
        markers = tuple(Marker(timed_idx[st.index], f"{st.change:+.1%}") for st in found)
        since = [values[i] for i in timed_idx[found[-1].index if found else 0:]]
        level = sorted(since)[len(since) // 2]
        band = Band(level / (1 + min_effect), level * (1 + min_effect), f"current level \u00d7/\u00f7 {1 + min_effect:g} (minimum effect)")
        last = next(p for p in reversed(points) if p.status == "timed")
        pct = f", {last.pct_of_peak:.1f}% of peak" if last.pct_of_peak is not None else ""
        out[s.suite].append(TrendPanel(
            s.suite, s.testbed, s.kind, s.case_id, unit, values, tuple(_short_label(p) for p in points), markers,
            f"last {last.median_s * scale:.4g} {unit.split(', ')[1]}{pct}", band,
        ))
    return dict(sorted(out.items()))


def _tile(config: dict[str, Any]) -> str:
    keys = [k for k in ("block_M", "block_N", "block_K", "block_Q", "block_KV") if config.get(k) is not None]
    label = "x".join(str(config[k]) for k in keys)
    if config.get("threads") is not None:
        label += f" t{config['threads']}"
    if config.get("num_cores") is not None:
        label += f" c{config['num_cores']}"
    if config.get("group_m") is not None:
        label += f" g{config['group_m']}"
    if config.get("stage_output"):
        label += " so"
    if config.get("enable_offset"):
        label += " offset"
    if config.get("fast_math"):
        label += " fm"
    if config.get("body") not in (None, "shared"):
        label += f" {config['body']} body"
    return label


def _modeled(rec: dict[str, Any]) -> float | None:
    value = ((rec.get("plan") or {}).get("schedule_model") or {}).get("modeled_cycles_per_core")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _latest_by_run(all_series: list[Series]) -> list[tuple[int, str, list[tuple[Series, Point]]]]:
    """Newest first: (run id, run label, [(series, point)]) for the timed points of each run."""
    runs: dict[int, list[tuple[Series, Point]]] = defaultdict(list)
    order: dict[int, tuple] = {}
    for s in all_series:
        for p in s.timed:
            runs[p.run_id].append((s, p))
            order[p.run_id] = (p.started_at or "", p.run_id)
    return [(rid, runs[rid][0][1].label, runs[rid]) for rid in sorted(runs, key=order.get, reverse=True)]


def throughput(rec: dict[str, Any]) -> tuple[str, float | None]:
    """(unit, value) of a device record on its basis: GB/s where its roofline says
    memory-bound, else TFLOP/s."""
    rate = rec.get("throughput") or {}
    if (rec.get("roofline") or {}).get("bound") == "memory":
        return "GB/s", rate.get("gbps_compulsory")
    return "TFLOP/s", rate.get("tflops")


def _stage_curves(items: list[tuple[Series, Point]], kind: str) -> dict[str, dict[str, list[tuple[float, float]]]]:
    curves: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for s, p in items:
        if s.kind != kind or s.is_vendor:
            continue
        rec = record(p)
        config = rec.get("config") or {}
        if config.get("loop_form") != "auto" or config.get("num_stages") is None:
            continue
        value = throughput(rec)[1] if kind == "device" else _modeled(rec)
        if value:
            curves[s.problem][_tile(config)].append((float(config["num_stages"]), value))
    return curves


def _vendor_line(items: list[tuple[Series, Point]], problem: str) -> tuple[str, tuple[str, float] | None]:
    """The unit of the problem's kernels and the same run's vendor item as (legend, value)."""
    kernels = [record(p) for s, p in items if s.kind == "device" and s.problem == problem and not s.is_vendor]
    unit = throughput(kernels[0])[0] if kernels else "TFLOP/s"
    vendors = [(p, record(p)) for s, p in items if s.kind == "device" and s.problem == problem and s.is_vendor]
    if not vendors:
        return unit, None
    point, rec = min(vendors, key=lambda pr: pr[0].median_s)
    value = throughput(rec)[1]
    name = str(rec.get("case_id", ""))[len(problem) + 1:] or "vendor"  # "vendor", or e.g. "sdpa_cudnn"
    return unit, ((f"{'vendor' if name == 'vendor' else 'vendor ' + name} (same run): {value:.4g} {unit}", value) if value else None)


def stage_panels(conn: sqlite3.Connection) -> list[StagePanel]:
    out = []
    quality = run_quality(conn)
    by_bed: dict[int, list[Series]] = defaultdict(list)
    for s in series(conn):
        by_bed[s.testbed.testbed_id].append(s)
    for bed_series in by_bed.values():
        bed = bed_series[0].testbed
        has_device = any(s.kind == "device" and s.timed for s in bed_series)
        kind = "device" if has_device else "compile"
        best: tuple[tuple[bool, int], int, str, dict, list] | None = None  # a clean run first, then the widest sweep; newest wins a tie
        for run_id, label, items in _latest_by_run(bed_series):
            curves = _stage_curves(items, kind)
            swept = {prob: tiles for prob, tiles in curves.items() if any(len(pts) >= 3 for pts in tiles.values())}
            rank = (quality[run_id].clean, max((len(pts) for tiles in swept.values() for pts in tiles.values()), default=0))
            if swept and (best is None or rank > best[0]):
                best = (rank, run_id, label, swept, items)
        if best is None:
            continue
        _, run_id, label, swept, items = best
        for prob, tiles in sorted(swept.items()):
            curves, hidden = _strongest(tiles, higher_is_better=has_device)
            if has_device:
                unit, reference = _vendor_line(items, prob)
                out.append(StagePanel(bed, "throughput (measured; higher is better)", f"{unit} (measured)", label, prob,
                                      curves, reference, quality[run_id].reasons, hidden))
            else:
                out.append(StagePanel(bed, "modeled cycles/core (compiler schedule model, not a time)",
                                      "modeled cycles per core", label, prob, curves, None, quality[run_id].reasons, hidden))
    return out


def _strongest(tiles: dict[str, list[tuple[float, float]]], higher_is_better: bool):
    """The ``MAX_CURVES`` tiles with the best point (a sweep of twenty tiles is no picture), in
    tile order, and how many were left out."""
    drawn = {tile: sorted(pts) for tile, pts in tiles.items() if len(pts) >= 2}
    best = {tile: (max if higher_is_better else min)(v for _, v in pts) for tile, pts in drawn.items()}
    kept = sorted(drawn, key=lambda t: best[t], reverse=higher_is_better)[:MAX_CURVES]
    return tuple((tile, tuple(drawn[tile])) for tile in sorted(kept)), len(drawn) - len(kept)


def schedule_groups(conn: sqlite3.Connection, limit: int = 4) -> list[tuple[str, str, str, list[dict[str, Any]]]]:
    """[(backend, title, run label, records one per num_stages)] from the newest run with schedule models."""
    for _, label, items in _latest_by_run(series(conn, kind="compile")):
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for s, p in items:
            rec = record(p)
            config = rec.get("config") or {}
            loops = ((rec.get("plan") or {}).get("schedule_model") or {}).get("loops")
            if loops and config.get("loop_form") == "auto" and (config.get("num_stages") or 0) >= 1:
                groups[(s.problem, _tile(config))].append(rec)
        if groups:
            chosen = sorted(groups.items())[:limit]
            return [(recs[0]["backend"], f"{prob}, tile {tile}", label, sorted(recs, key=lambda r: r["config"]["num_stages"]))
                    for (prob, tile), recs in chosen]
    return []
