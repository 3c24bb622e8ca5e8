"""The ``history show`` table: one row per case and testbed, ITS OWN last runs side by side.

Contract (pure): ``case_trends(series_list, last, min_effect)``: a ``CaseTrend`` per series (last
points, best median, last against best, % of peak, latest level change); ``trend_table(trends,
last, width)`` lays them out (text_table.py); ``trend_legend`` lists the testbeds and runs shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .query import Point, Series
from .steps import Step, detect_steps
from ..report.table import format_seconds
from ..report.text_table import Column, Group, Line, TextRow, render, split_id


@dataclass(frozen=True)
class CaseTrend:
    series: Series
    shown: tuple[Point, ...]  # this case's last points, oldest first
    best: float | None
    last_vs_best: float | None
    pct_of_peak: float | None
    step: Step | None
    step_run: int | None


def case_trends(all_series: Sequence[Series], last: int = 6, min_effect: float = 0.05) -> list[CaseTrend]:
    out = []
    for s in all_series:
        timed = s.timed
        best = min((p.median_s for p in timed), default=None)
        last_timed = timed[-1] if timed else None
        steps = detect_steps([p.median_s for p in timed], min_effect) if timed else []
        out.append(CaseTrend(
            s, tuple(s.points[-last:]), best,
            last_timed.median_s / best - 1 if last_timed and best else None,
            last_timed.pct_of_peak if last_timed else None,
            steps[-1] if steps else None, timed[steps[-1].index].run_id if steps else None,
        ))
    return out


def _cell(point: Point | None) -> str:
    if point is None:
        return ""
    if point.status == "failed":
        return "FAILED"
    return "skip" if point.status == "skipped" else format_seconds(point.median_s)


def trend_table(trends: Sequence[CaseTrend], last: int, width: int) -> list[Line]:
    slots = min(last, max((len(t.shown) for t in trends), default=0))
    heads = [f"-{slots - 1 - i}" if i < slots - 1 else "last" for i in range(slots)]
    columns = [Column("config"), *(Column(h, right=True) for h in heads), Column("runs", right=True), Column("best", right=True),
               Column("last/best", right=True), Column("% peak", right=True), Column("last step")]
    groups: dict[tuple, list[TextRow]] = {}
    for t in trends:
        s = t.series
        problem, config = split_id(s.case_id, s.problem)
        cells = [_cell(p) for p in t.shown]
        cells = [""] * (slots - len(cells)) + cells
        step = f"{t.step.change:+.1%} at run {t.step_run}" if t.step is not None else ""
        row = TextRow((config, *cells, str(len(s.points)), format_seconds(t.best) if t.best else "",
                       f"{t.last_vs_best:+.1%}" if t.last_vs_best is not None else "",
                       f"{t.pct_of_peak:.1f}%" if t.pct_of_peak is not None else "", step),
                      "runs " + ", ".join(str(p.run_id) for p in t.shown), "yellow" if step else None)
        groups.setdefault((s.testbed.testbed_id, s.kind, problem, s.suite), []).append(row)
    out = [Group(f"testbed {bed} | {kind} | {problem} [{suite}] ({len(rows)})", tuple(rows))
           for (bed, kind, problem, suite), rows in sorted(groups.items())]
    return render(columns, out, width, note_header="")


def trend_legend(trends: Sequence[CaseTrend], last: int = 6) -> list[str]:
    beds = {t.series.testbed.testbed_id: t.series.testbed for t in trends}
    points = {p.run_id: p for t in trends for p in t.shown}
    lines = [f"testbed {i}: {bed.describe()}" for i, bed in sorted(beds.items())]
    lines += [points[r].label for r in sorted(points, key=lambda r: (points[r].started_at or "", r))]
    return lines
