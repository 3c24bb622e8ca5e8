"""What the dashboard shows over time, read from the history's series.  Data only; no HTML.

Contract: ``keep_suite(suite, exclude)``; ``trend_panels(series, min_effect)``: per suite one
``TrendPanel`` per (testbed, kind, case): its median per run, level changes and the
minimum-effect band; ``latest_by_run(series)``: the runs newest first with their timed points.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from .svg import Band, Marker
from ..results.history.query import Point, Series, TestbedRow
from ..results.history.step_context import step_contexts
from ..results.history.steps import detect_steps

SCRATCH = ("*tmp*", "*scratch*")  # suites left out unless asked for (a focus or scratch run)


def keep_suite(suite: str, exclude: Iterable[str]) -> bool:
    return not any(fnmatch.fnmatchcase(suite, pattern) for pattern in exclude)


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


def unit_of(kind: str) -> tuple[str, float]:
    return ("device time, ms", 1e3) if kind == "device" else ("compile time, s", 1.0)


def _short_label(point: Point) -> str:
    return f"#{point.run_id} {(point.started_at or '')[5:10]}"


def trend_panels(all_series: Sequence[Series], min_effect: float = 0.05) -> dict[str, list[TrendPanel]]:
    out: dict[str, list[TrendPanel]] = defaultdict(list)
    for s in all_series:
        unit, scale = unit_of(s.kind)
        points = [p for p in s.points if p.status in ("timed", "failed")]
        if not any(p.status == "timed" for p in points):
            continue
        values = tuple(p.median_s * scale if p.status == "timed" and p.median_s else None for p in points)
        timed_idx = [i for i, v in enumerate(values) if v is not None]
        found = detect_steps([values[i] for i in timed_idx], min_effect)
        contexts = step_contexts([points[i] for i in timed_idx], found)
        markers = tuple(Marker(timed_idx[st.index], f"{st.change:+.1%}" + ("" if ctx.code_change else " same commit"))
                        for st, ctx in zip(found, contexts))
        since = sorted(values[i] for i in timed_idx[found[-1].index if found else 0:])
        level = since[len(since) // 2]
        band = Band(level / (1 + min_effect), level * (1 + min_effect),
                    f"current level \u00d7/\u00f7 {1 + min_effect:g} (minimum effect)")
        last = next(p for p in reversed(points) if p.status == "timed")
        pct = f", {last.pct_of_peak:.1f}% of peak" if last.pct_of_peak is not None else ""
        out[s.suite].append(TrendPanel(s.suite, s.testbed, s.kind, s.case_id, unit, values,
                                       tuple(_short_label(p) for p in points), markers,
                                       f"last {last.median_s * scale:.4g} {unit.split(', ')[1]}{pct}", band))
    return dict(sorted(out.items()))


def latest_by_run(all_series: Iterable[Series]) -> list[tuple[int, str, list[tuple[Series, Point]]]]:
    """Newest first: (run id, run label, [(series, point)]) for the timed points of each run."""
    runs: dict[int, list[tuple[Series, Point]]] = defaultdict(list)
    order: dict[int, tuple] = {}
    for s in all_series:
        for p in s.timed:
            runs[p.run_id].append((s, p))
            order[p.run_id] = (p.started_at or "", p.run_id)
    return [(rid, runs[rid][0][1].label, runs[rid]) for rid in sorted(runs, key=order.get, reverse=True)]
