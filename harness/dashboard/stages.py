"""The dashboard's stage curves: every suite that sweeps num_stages, per testbed.  Data only.

Contract: ``stage_point(record)``: ``(tile, num_stages)`` or None; ``stage_panels(series,
quality)``: one ``StagePanel`` per (suite, problem, testbed) whose chosen run sweeps two or more
depths: the ``MAX_CURVES`` best tiles' throughput or modeled cycles (never mixed) per depth;
``headline(panels)``; ``schedule_groups(series, limit)``: records with a schedule model.
"""

from __future__ import annotations

from ..results.report.text_table import natural_key
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from ..core.described import record_stage
from ..core.record_reader import RecordReader
from .data import latest_by_run
from ..results.files.record_fields import Record
from ..results.compare.pairing import modeled_cycles_of
from ..results.history.query import Point, Series, TestbedRow

MAX_CURVES = 6  # tiles drawn per stage panel: the best ones
MIN_DEPTHS = 2  # two depths of one tile are a sweep (a line); one is a point
MEASURED = "throughput (measured; higher is better)"
MODELED = "modeled cycles/core (compiler schedule model, not a time)"
_READER = RecordReader()


@dataclass(frozen=True)
class StagePanel:
    testbed: TestbedRow
    suite: str
    metric: str  # MEASURED | MODELED
    unit: str
    run_label: str
    problem: str
    curves: tuple[tuple[str, tuple[tuple[float, float], ...]], ...]
    reference: tuple[str, float] | None = None  # (legend, value): the same run's vendor item
    not_clean: tuple[str, ...] = ()  # why the run shown is not a clean run of a commit (empty: it is)
    hidden_tiles: int = 0  # swept tiles not drawn (only the MAX_CURVES best are)
    depths: int = 0  # the widest sweep of one tile in the panel
    same_on: tuple[int, ...] = ()  # other testbeds whose model gave these very curves (a model does not depend on the host)


def stage_point(rec: Record) -> tuple[str, int] | None:
    config = rec.config
    if not isinstance(config, dict):
        return None
    point = record_stage(rec.raw)  # a described kernel's, as its family worded it
    if point is None:
        try:
            point = _READER.read(dict(rec.raw)).stage
        except Exception:  # noqa: BLE001 - a family not installed here: the config's own values
            point = None
    if point is not None:
        return (point.tile, point.num_stages) if point.loop_form == "auto" and point.num_stages is not None else None
    stages = config.get("num_stages")
    if config.get("loop_form", "auto") != "auto" or not isinstance(stages, int):
        return None
    return " ".join(f"{k}={v}" for k, v in config.items() if k not in ("loop_form", "num_stages")), stages


def throughput(rec: Record) -> tuple[str, float | None]:
    """(unit, value) of a device record on its basis: GB/s where its roofline says memory-bound, else TFLOP/s."""
    if (rec.roofline or {}).get("bound") == "memory":
        return "GB/s", rec.throughput.get("gbps_compulsory")
    return "TFLOP/s", rec.throughput.get("tflops")


def _curves(items: list[tuple[Series, Point]], kind: str) -> dict[str, dict[str, list[tuple[float, float]]]]:
    curves: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for s, p in items:
        if s.kind != kind or s.is_vendor:
            continue
        rec = p.typed
        point = stage_point(rec)
        value = (throughput(rec)[1] if kind == "device" else modeled_cycles_of(rec)) if point is not None else None
        if value:
            curves[s.problem][point[0] + (f" ({rec.label})" if rec.label else "")].append((float(point[1]), value))
    return curves


def _vendor_line(items: list[tuple[Series, Point]], problem: str) -> tuple[str, tuple[str, float] | None]:
    """The unit of the problem's kernels and the same run's vendor item as (legend, value)."""
    kernels = [p.typed for s, p in items if s.kind == "device" and s.problem == problem and not s.is_vendor]
    unit = throughput(kernels[0])[0] if kernels else "TFLOP/s"
    vendors = [(p, p.typed) for s, p in items if s.kind == "device" and s.problem == problem and s.is_vendor]
    if not vendors:
        return unit, None
    point, rec = min(vendors, key=lambda pr: pr[0].median_s)
    value = throughput(rec)[1]
    name = rec.case_id[len(problem) + 1:] or "vendor"  # "vendor", or e.g. "sdpa_cudnn"
    return unit, ((f"{'vendor' if name == 'vendor' else 'vendor ' + name} (same run): {value:.4g} {unit}", value) if value else None)


def _strongest(tiles: dict[str, list[tuple[float, float]]], higher_is_better: bool):
    """The ``MAX_CURVES`` tiles with the best point, in tile order, and how many were left out."""
    drawn = {tile: sorted(pts) for tile, pts in tiles.items() if len(pts) >= 2}
    best = {tile: (max if higher_is_better else min)(v for _, v in pts) for tile, pts in drawn.items()}
    kept = sorted(drawn, key=lambda t: best[t], reverse=higher_is_better)[:MAX_CURVES]
    return tuple((tile, tuple(drawn[tile])) for tile in sorted(kept)), len(drawn) - len(kept)


def stage_panels(all_series: Sequence[Series], quality: Mapping[int, Any]) -> list[StagePanel]:
    by: dict[tuple[int, str], list[Series]] = defaultdict(list)
    for s in all_series:
        by[(s.testbed.testbed_id, s.suite)].append(s)
    out = []
    for (_, suite), group in by.items():
        bed = group[0].testbed
        measured = any(s.kind == "device" and s.timed for s in group)
        kind = "device" if measured else "compile"
        best = None  # (rank, label, swept, items, run_id): a clean run first, then the widest sweep, newest on a tie
        for run_id, label, items in latest_by_run(group):
            swept = {prob: tiles for prob, tiles in _curves(items, kind).items()
                     if any(len({x for x, _ in pts}) >= MIN_DEPTHS for pts in tiles.values())}
            depths = max((len({x for x, _ in pts}) for tiles in swept.values() for pts in tiles.values()), default=0)
            rank = (quality[run_id].clean, depths)
            if swept and (best is None or rank > best[0]):
                best = (rank, label, swept, items, run_id)
        if best is None:
            continue
        (_, depths), label, swept, items, run_id = best
        for prob, tiles in sorted(swept.items()):
            curves, hidden = _strongest(tiles, higher_is_better=measured)
            if measured:
                unit, reference = _vendor_line(items, prob)
                out.append(StagePanel(bed, suite, MEASURED, f"{unit} (measured)", label, prob, curves, reference,
                                      quality[run_id].reasons, hidden, depths))
            else:
                out.append(StagePanel(bed, suite, MODELED, "modeled cycles per core", label, prob, curves, None,
                                      quality[run_id].reasons, hidden, depths))
    out = _one_per_model(sorted(out, key=lambda p: p.testbed.testbed_id))
    widest = {suite: max(p.depths for p in out if p.suite == suite) for suite in {p.suite for p in out}}
    return sorted(out, key=lambda p: (-widest[p.suite], p.suite, natural_key(p.problem), p.metric != MEASURED, p.testbed.testbed_id))


def _one_per_model(panels: Sequence[StagePanel]) -> list[StagePanel]:
    """Identical modeled curves of several testbeds drawn once, naming the others; measured never merged."""
    out: list[StagePanel] = []
    first: dict[tuple, int] = {}
    for p in panels:
        key = (p.suite, p.problem, p.testbed.backend, p.testbed.tilelang, p.curves) if p.metric == MODELED else None
        if key is not None and key in first:
            kept = out[first[key]]
            out[first[key]] = replace(kept, same_on=kept.same_on + (p.testbed.testbed_id,))
            continue
        if key is not None:
            first[key] = len(out)
        out.append(p)
    return out


def headline(panels: Sequence[StagePanel]) -> list[StagePanel]:
    """Per suite, the panels of its largest problem among those swept widest."""
    chosen: dict[str, str] = {}
    for suite in {p.suite for p in panels}:
        mine = [p for p in panels if p.suite == suite]
        chosen[suite] = max(mine, key=lambda p: (p.depths, natural_key(p.problem))).problem
    return [p for p in panels if chosen[p.suite] == p.problem]


def schedule_groups(all_series: Sequence[Series],
                    limit: int = 4) -> list[tuple[str, str, str, list[Mapping[str, Any]]]]:
    """[(backend, title, run label, records one per num_stages)] from the newest run with schedule models."""
    for _, label, items in latest_by_run(s for s in all_series if s.kind == "compile"):
        groups: dict[tuple[str, str], list[tuple[int, Record]]] = defaultdict(list)  # (num_stages, record)
        for s, p in items:
            rec = p.typed
            loops = ((rec.plan or {}).get("schedule_model") or {}).get("loops")
            point = stage_point(rec)
            if loops and point is not None and point[1] >= 1:
                groups[(s.problem, point[0])].append((point[1], rec))
        if groups:
            chosen = sorted(groups.items(), key=lambda kv: kv[0])[:limit]
            return [(recs[0][1].backend, f"{prob}, tile {tile}", label,
                     [r.raw for _, r in sorted(recs, key=lambda dr: dr[0])])
                    for (prob, tile), recs in chosen]
    return []
