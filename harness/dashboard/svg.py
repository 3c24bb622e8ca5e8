"""SVG charts as text: a trend over runs with level changes marked, and curves over num_stages.

Contract: pure functions returning one ``<svg>`` element string (inline in HTML; no
script, no external resource).  ``trend_chart`` draws one case's value per run (x = run
order, so 100+ runs stay evenly spaced; markers are dropped past ``DOT_LIMIT`` points and
x labels thinned to about ``MAX_X_LABELS``), failed runs as red crosses on the axis, and
each ``Step`` as a dashed vertical line labelled with its change.  ``curve_chart`` draws
several named series of (x, y) points with a legend.  Axis labels always carry the unit.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Sequence

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")
DOT_LIMIT = 60
MAX_X_LABELS = 8


@dataclass(frozen=True)
class Marker:
    index: int  # position in the series where the new level starts
    text: str


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def nice_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    if not math.isfinite(lo) or not math.isfinite(hi):
        return []
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    start = math.floor(lo / step) * step
    ticks, value = [], start
    while value <= hi + step * 1e-9:
        if value >= lo - step * 1e-9:
            ticks.append(round(value, 12))
        value += step
    return ticks


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _frame(width: int, height: int, title: str, body: list[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(label)}">'
        f'<title>{_esc(label)}</title>'
        f'<text x="8" y="14" class="t">{_esc(title)}</text>' + "".join(body) + "</svg>"
    )


def trend_chart(
    values: Sequence[float | None],
    x_labels: Sequence[str],
    unit: str,
    title: str,
    steps: Sequence[Marker] = (),
    width: int = 460,
    height: int = 170,
) -> str:
    """``values[i]`` is run i's value (None: the item failed in that run)."""
    left, right, top, bottom = 58, 10, 24, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    finite = [v for v in values if v is not None]
    if not finite:
        return _frame(width, height, title, [f'<text x="{left}" y="{top + 20}" class="n">no timed run</text>'], title)
    lo, hi = min(finite), max(finite)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    n = len(values)
    x = (lambda i: left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2))
    y = (lambda v: top + plot_h * (1 - (v - lo) / (hi - lo)))
    body = [f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="bg"/>']
    for tick in nice_ticks(lo, hi):
        ty = y(tick)
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{ty:.1f}" y2="{ty:.1f}" class="g"/>')
        body.append(f'<text x="{left - 4}" y="{ty + 3:.1f}" class="yl">{_fmt(tick)}</text>')
    every = max(1, math.ceil(n / MAX_X_LABELS))
    for i in range(0, n, every):
        body.append(f'<text x="{x(i):.1f}" y="{height - 16}" class="xl">{_esc(x_labels[i])}</text>')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 3}" class="xl">run (oldest left)</text>')
    body.append(f'<text x="10" y="{top + plot_h / 2:.1f}" class="yl" transform="rotate(-90 10 {top + plot_h / 2:.1f})">{_esc(unit)}</text>')
    segments, current = [], []
    for i, v in enumerate(values):
        if v is None:
            if current:
                segments.append(current)
            current = []
            body.append(f'<text x="{x(i):.1f}" y="{top + plot_h - 2:.1f}" class="fail">×</text>')
        else:
            current.append(f"{x(i):.1f},{y(v):.1f}")
    if current:
        segments.append(current)
    for seg in segments:
        body.append(f'<polyline points="{" ".join(seg)}" class="ln"/>')
    if n <= DOT_LIMIT:
        body += [f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.2" class="dot"><title>{_esc(x_labels[i])}: {_fmt(v)} {_esc(unit)}</title></circle>'
                 for i, v in enumerate(values) if v is not None]
    for step in steps:
        sx = x(step.index) - (plot_w / (n - 1) / 2 if n > 1 else 0)
        body.append(f'<line x1="{sx:.1f}" x2="{sx:.1f}" y1="{top}" y2="{top + plot_h}" class="step"/>')
        anchor = "end" if sx > left + plot_w - 50 else "start"
        tx = sx - 3 if anchor == "end" else sx + 3
        body.append(f'<text x="{tx:.1f}" y="{top + 10}" class="stept" text-anchor="{anchor}">{_esc(step.text)}</text>')
    return _frame(width, height, title, body, f"{title} ({n} runs)")


def curve_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    x_unit: str,
    y_unit: str,
    title: str,
    x_tick_labels: dict[float, str] | None = None,
    width: int = 520,
    height: int = 260,
) -> str:
    left, right, top, bottom = 66, 150, 24, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    points = [p for _, pts in series for p in pts]
    if not points:
        return _frame(width, height, title, [f'<text x="{left}" y="{top + 20}" class="n">no points</text>'], title)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x_lo, x_hi = min(xs), max(xs)
    x_lo, x_hi = (x_lo - 0.5, x_hi + 0.5) if x_hi == x_lo else (x_lo - 0.3, x_hi + 0.3)
    y_lo, y_hi = 0.0, max(ys) * 1.08
    x = (lambda v: left + plot_w * (v - x_lo) / (x_hi - x_lo))
    y = (lambda v: top + plot_h * (1 - (v - y_lo) / (y_hi - y_lo)))
    body = [f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="bg"/>']
    for tick in nice_ticks(y_lo, y_hi):
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="g"/>')
        body.append(f'<text x="{left - 4}" y="{y(tick) + 3:.1f}" class="yl">{_fmt(tick)}</text>')
    for value in sorted(set(xs)):
        label = (x_tick_labels or {}).get(value, _fmt(value))
        body.append(f'<text x="{x(value):.1f}" y="{height - 20}" class="xl">{_esc(label)}</text>')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 5}" class="xl">{_esc(x_unit)}</text>')
    body.append(f'<text x="12" y="{top + plot_h / 2:.1f}" class="yl" transform="rotate(-90 12 {top + plot_h / 2:.1f})">{_esc(y_unit)}</text>')
    for k, (name, pts) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        ordered = sorted(pts)
        body.append(f'<polyline points="{" ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in ordered)}" fill="none" stroke="{color}" stroke-width="1.8"/>')
        body += [f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3" fill="{color}"><title>{_esc(name)}: {_fmt(b)} {_esc(y_unit)}</title></circle>'
                 for a, b in ordered]
        ly = top + 12 + 14 * k
        body.append(f'<rect x="{left + plot_w + 8}" y="{ly - 8}" width="10" height="10" fill="{color}"/>')
        body.append(f'<text x="{left + plot_w + 22}" y="{ly + 1}" class="lg">{_esc(name)}</text>')
    return _frame(width, height, title, body, title)
