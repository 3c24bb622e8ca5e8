"""What the dashboard shows, read from the history database.  Data only; no HTML.

Contract (every function takes an ``open_history`` connection):
- ``trend_panels(conn, min_effect)``: per suite, one ``TrendPanel`` per (testbed, kind,
  case): its median per run (device time in ms, compile time in s; None where it failed),
  run labels, and the level changes ``history.steps`` finds.
- ``stage_panels(conn)``: per testbed, the run with the widest num_stages sweep (3+ depths
  for one tile; the newest such run on a tie): one curve per tile, num_stages -> device time (measured) or, for a testbed
  with no device time, modeled cycles per core (a model, labelled so; never mixed).
- ``best_rows(conn)``: per testbed and problem, the fastest kernel of its newest device
  runs with TFLOP/s and % of peak (or "peak unknown"), and the vendor item beside it.
- ``schedule_groups(conn, limit)``: records with a compiler schedule model from the newest
  run that has them, grouped per (problem, tile) with num_stages >= 1, for the backend's
  schedule figure (``BackendTraits.schedule_figure``).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tlbench.harness.dashboard.svg import Marker
from tlbench.harness.results.history.query import Point, Series, TestbedRow, record, series
from tlbench.harness.results.history.steps import detect_steps


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


@dataclass(frozen=True)
class StagePanel:
    testbed: TestbedRow
    metric: str  # "device time (measured)" | "modeled cycles/core (compiler schedule model, not a time)"
    unit: str
    run_label: str
    problem: str
    curves: tuple[tuple[str, tuple[tuple[float, float], ...]], ...]


@dataclass(frozen=True)
class BestRow:
    testbed: TestbedRow
    problem: str
    case_id: str
    median_ms: float
    tflops: float | None
    pct_of_peak: str
    vendor_ms: float | None
    vendor_pct: str
    run_label: str


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
        markers = tuple(
            Marker(timed_idx[st.index], f"{st.change:+.1%}")
            for st in detect_steps([values[i] for i in timed_idx], min_effect)
        )
        last = next(p for p in reversed(points) if p.status == "timed")
        pct = f", {last.pct_of_peak:.1f}% of peak" if last.pct_of_peak is not None else ""
        out[s.suite].append(TrendPanel(
            s.suite, s.testbed, s.kind, s.case_id, unit, values, tuple(_short_label(p) for p in points), markers,
            f"last {last.median_s * scale:.4g} {unit.split(', ')[1]}{pct}",
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


def _stage_curves(items: list[tuple[Series, Point]], kind: str) -> dict[str, dict[str, list[tuple[float, float]]]]:
    curves: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for s, p in items:
        if s.kind != kind or s.is_vendor:
            continue
        rec = record(p)
        config = rec.get("config") or {}
        if config.get("loop_form") != "auto" or config.get("num_stages") is None:
            continue
        value = p.median_s * 1e3 if kind == "device" else _modeled(rec)
        if value:
            curves[s.problem][_tile(config)].append((float(config["num_stages"]), value))
    return curves


def stage_panels(conn: sqlite3.Connection) -> list[StagePanel]:
    out = []
    by_bed: dict[int, list[Series]] = defaultdict(list)
    for s in series(conn):
        by_bed[s.testbed.testbed_id].append(s)
    for bed_series in by_bed.values():
        bed = bed_series[0].testbed
        has_device = any(s.kind == "device" and s.timed for s in bed_series)
        kind = "device" if has_device else "compile"
        metric, unit = (("device time (measured)", "device time, ms") if has_device
                        else ("modeled cycles/core (compiler schedule model, not a time)", "modeled cycles per core"))
        best: tuple[int, str, dict] | None = None  # the widest sweep; newest wins a tie
        for _, label, items in _latest_by_run(bed_series):
            curves = _stage_curves(items, kind)
            swept = {prob: tiles for prob, tiles in curves.items() if any(len(pts) >= 3 for pts in tiles.values())}
            width = max((len(pts) for tiles in swept.values() for pts in tiles.values()), default=0)
            if swept and (best is None or width > best[0]):
                best = (width, label, swept)
        if best is None:
            continue
        _, label, swept = best
        for prob, tiles in sorted(swept.items()):
            out.append(StagePanel(bed, metric, unit, label, prob,
                                  tuple((tile, tuple(sorted(pts))) for tile, pts in sorted(tiles.items()) if len(pts) >= 2)))
    return out


def _pct_text(point: Point) -> str:
    if point.pct_of_peak is not None:
        return f"{point.pct_of_peak:.1f}%"
    roof = record(point).get("roofline") or {}
    return "peak unknown" if roof.get("status") == "peak unknown" else "not recorded"


def best_rows(conn: sqlite3.Connection) -> list[BestRow]:
    latest: dict[tuple[int, str], list[tuple[Series, Point]]] = defaultdict(list)
    for s in series(conn, kind="device"):
        if s.timed:
            latest[(s.testbed.testbed_id, s.problem)].append((s, s.timed[-1]))
    rows = []
    for (_, problem), items in sorted(latest.items()):
        kernels = [(s, p) for s, p in items if not s.is_vendor]
        vendors = [(s, p) for s, p in items if s.is_vendor]
        if not kernels:
            continue
        s, p = min(kernels, key=lambda sp: sp[1].median_s)
        vendor = min(vendors, key=lambda sp: sp[1].median_s)[1] if vendors else None
        rows.append(BestRow(s.testbed, problem, s.case_id, p.median_s * 1e3, p.tflops, _pct_text(p),
                            vendor.median_s * 1e3 if vendor else None, _pct_text(vendor) if vendor else "", p.label))
    return rows


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
