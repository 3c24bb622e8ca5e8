"""SVG charts as text: a trend over runs with level changes marked, and curves over num_stages.

Contract (pure; one ``<svg>`` string, no script): ``trend_chart`` (one value per run, failed runs
as crosses, ``Marker`` lines, an optional ``Band``) and ``curve_chart`` (named series, a
reference line, a wrapped legend).  Text that does not fit is cut in the middle (``fit``), the
full text its tooltip.
"""

from __future__ import annotations

import html
import math
import textwrap
from dataclasses import dataclass
from typing import Sequence

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")
DOT_LIMIT = 60
MAX_X_LABELS = 8


@dataclass(frozen=True)
class Marker:
    index: int  # position in the series where the new level starts
    text: str


@dataclass(frozen=True)
class Band:
    low: float
    high: float
    text: str  # e.g. "current level +-5% (minimum effect)"


CHAR_PX = 6.8  # a generous glyph width of the charts' 10 px sans-serif (DejaVu Sans digits: 6.4)
TITLE_CHAR_PX = 7.9  # the same for the bold 11 px titles


def fit(text: str, width_px: float, char_px: float = CHAR_PX) -> str:
    """``text`` as it fits in ``width_px``: whole, or cut in the middle with an ellipsis."""
    room = max(4, int(width_px / char_px))
    if len(text) <= room:
        return text
    head = (room - 1) // 2
    return text[:head] + "\u2026" + text[len(text) - (room - 1 - head):]


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
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(label)}">'
            f'<title>{_esc(label)}</title>'
            f'<text x="8" y="14" class="t">{_esc(fit(title, width - 16, TITLE_CHAR_PX))}</text>' + "".join(body) + "</svg>")


def trend_chart(values: Sequence[float | None], x_labels: Sequence[str], unit: str, title: str,
                steps: Sequence[Marker] = (), width: int = 460, height: int = 170, band: Band | None = None) -> str:
    """``values[i]`` is run i's value (None: the item failed in that run)."""
    left, right, top, bottom = 70, 34, 24, 30  # room for a centred run label at either end
    plot_w, plot_h = width - left - right, height - top - bottom
    finite = [v for v in values if v is not None]
    if not finite:
        return _frame(width, height, title, [f'<text x="{left}" y="{top + 20}" class="n">no timed run</text>'], title)
    lo, hi = min(finite), max(finite)
    if band is not None:
        lo, hi = min(lo, band.low), max(hi, band.high)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    n = len(values)
    x = (lambda i: left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2))
    y = (lambda v: top + plot_h * (1 - (v - lo) / (hi - lo)))
    body = [f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="bg"/>']
    if band is not None:
        body.append(f'<rect x="{left}" y="{y(band.high):.1f}" width="{plot_w}" height="{y(band.low) - y(band.high):.1f}" '
                    f'class="band"><title>{_esc(band.text)}</title></rect>')
        body.append(f'<text x="{left + 4}" y="{y(band.low) - 3:.1f}" class="bandt">{_esc(fit(band.text, plot_w - 8))}</text>')
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
        room_right, room_left = left + plot_w - (sx + 3), sx - 3 - left
        anchor = "start" if len(step.text) * TITLE_CHAR_PX <= room_right or room_right >= room_left else "end"
        tx = sx - 3 if anchor == "end" else sx + 3
        label = fit(step.text, max(room_right if anchor == "start" else room_left, TITLE_CHAR_PX), TITLE_CHAR_PX)  # bold
        body.append(f'<text x="{tx:.1f}" y="{top + 10}" class="stept" text-anchor="{anchor}">{_esc(label)}'
                    f'<title>{_esc(step.text)}</title></text>')
    return _frame(width, height, title, body, f"{title} ({n} runs)")


def curve_chart(series: Sequence[tuple[str, Sequence[tuple[float, float]]]], x_unit: str, y_unit: str, title: str,
                x_tick_labels: dict[float, str] | None = None, width: int = 520, height: int = 260,
                reference: tuple[str, float] | None = None) -> str:
    """``reference``: (legend text, y) drawn as a dashed horizontal line (the vendor library)."""
    left, right, top, bottom = 66, 14, 24, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    entries = [name for name, _ in series] + ([reference[0]] if reference else [])
    column_w = min(plot_w, max(len(e) for e in entries) * CHAR_PX + 22) if entries else plot_w
    columns = max(1, int(plot_w // column_w))
    wrapped = [[fit(line, column_w - 20) for line in textwrap.wrap(e, max(4, int((column_w - 20) / CHAR_PX)),
                                                                   break_long_words=False, break_on_hyphens=False) or [e]]
               for e in entries]
    first_row = [0]  # an entry's first legend row: one row an entry in a grid, its wrapped rows in one column
    for lines in wrapped:
        first_row.append(first_row[-1] + (len(lines) if columns == 1 else 0))
    legend_rows = first_row[-1] if columns == 1 else -(-len(entries) // columns)
    height += legend_rows * 15 + 6  # the legend sits under the plot, as many rows as it needs
    points = [p for _, pts in series for p in pts]
    if not points:
        return _frame(width, height, title, [f'<text x="{left}" y="{top + 20}" class="n">no points</text>'], title)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x_lo, x_hi = min(xs), max(xs)
    x_lo, x_hi = (x_lo - 0.5, x_hi + 0.5) if x_hi == x_lo else (x_lo - 0.3, x_hi + 0.3)
    y_lo, y_hi = 0.0, max([*ys, reference[1] if reference else 0.0]) * 1.08
    x = (lambda v: left + plot_w * (v - x_lo) / (x_hi - x_lo))
    y = (lambda v: top + plot_h * (1 - (v - y_lo) / (y_hi - y_lo)))
    body = [f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="bg"/>']
    for tick in nice_ticks(y_lo, y_hi):
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="g"/>')
        body.append(f'<text x="{left - 4}" y="{y(tick) + 3:.1f}" class="yl">{_fmt(tick)}</text>')
    for value in sorted(set(xs)):
        label = (x_tick_labels or {}).get(value, _fmt(value))
        body.append(f'<text x="{x(value):.1f}" y="{top + plot_h + 14}" class="xl">{_esc(label)}</text>')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 29}" class="xl">{_esc(x_unit)}</text>')

    def legend_at(k: int) -> tuple[float, float]:
        row = first_row[k] if columns == 1 else k // columns
        return left + (k % columns) * column_w, top + plot_h + bottom + 12 + 15 * row

    def legend_text(k: int, lx: float, ly: float) -> str:
        rows = "".join(f'<tspan x="{lx + 14:.1f}" dy="{15 if i else 0}">{_esc(line)}</tspan>' for i, line in enumerate(wrapped[k]))
        return f'<text x="{lx + 14:.1f}" y="{ly + 1:.1f}" class="lg">{rows}<title>{_esc(entries[k])}</title></text>'

    body.append(f'<text x="12" y="{top + plot_h / 2:.1f}" class="yl" transform="rotate(-90 12 {top + plot_h / 2:.1f})">{_esc(y_unit)}</text>')
    for k, (name, pts) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        ordered = sorted(pts)
        body.append(f'<polyline points="{" ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in ordered)}" fill="none" stroke="{color}" stroke-width="1.8"/>')
        body += [f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3" fill="{color}"><title>{_esc(name)}: {_fmt(b)} {_esc(y_unit)}</title></circle>'
                 for a, b in ordered]
        lx, ly = legend_at(k)
        body.append(f'<rect x="{lx:.1f}" y="{ly - 8:.1f}" width="10" height="10" fill="{color}"/>')
        body.append(legend_text(k, lx, ly))
    if reference is not None:
        ry = y(reference[1])
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{ry:.1f}" y2="{ry:.1f}" class="ref"><title>{_esc(reference[0])}</title></line>')
        lx, ly = legend_at(len(series))
        body.append(f'<line x1="{lx:.1f}" x2="{lx + 10:.1f}" y1="{ly - 3:.1f}" y2="{ly - 3:.1f}" class="ref"/>')
        body.append(legend_text(len(series), lx, ly))
    return _frame(width, height, title, body, title)
