"""Space-time figure of a pipelined loop: one panel per schedule, one row per lane.

Contract: a figure is a sequence of ``Panel``s, each a title plus ``Lane``s of ``Bar``s and
optional shaded ``Phase`` spans.  ``draw_space_time(panels, path, title)`` renders a PNG on one
shared time axis, overlapping bars on sub-rows (``pack_tracks``); matplotlib is imported lazily.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .timeline_model import Timeline

PHASE_KINDS = ("prologue", "steady", "epilogue")
PHASE_LABELS = {"prologue": "prologue (fill)", "steady": "steady state", "epilogue": "epilogue (drain)"}
PHASE_SHORT_LABELS = {"prologue": "fill", "steady": "steady", "epilogue": "drain"}
LANE_DESCRIPTIONS = {"copy": "copy (issue -> data arrival)", "compute": "compute"}
PHASE_COLORS = {"prologue": "#9ecae1", "steady": "#c7e9c0", "epilogue": "#fdd0a2"}

# Fixed colours for the names the harness uses; anything else takes a palette colour.
LANE_COLORS = {
    "copy": "#4c78a8", "compute": "#f58518", "MTE1": "#72b7b2", "MTE2": "#4c78a8", "MTE3": "#54a24b", "Cube": "#f58518",
    "Vector": "#e45756", "Fixpipe": "#b279a2", "Scalar": "#9d755d",
}
_PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
            "#eeca3b")


@dataclass(frozen=True)
class Bar:
    start: float
    end: float
    label: str = ""
    row: int | None = None  # fixed sub-row inside the lane (e.g. buffer slot); None: packed


@dataclass(frozen=True)
class Lane:
    name: str
    bars: tuple[Bar, ...]
    caption: str = ""  # second line of the row label, e.g. "3 buffers"


@dataclass(frozen=True)
class Phase:
    kind: str  # one of PHASE_KINDS
    start: float
    end: float


@dataclass(frozen=True)
class Panel:
    title: str
    lanes: tuple[Lane, ...]
    phases: tuple[Phase, ...] = ()
    subtitle: str = ""
    end_marker: float | None = None  # e.g. the makespan; drawn as a dashed line

    @property
    def end(self) -> float:
        ends = [b.end for lane in self.lanes for b in lane.bars] + [p.end for p in self.phases]
        if self.end_marker is not None:
            ends.append(self.end_marker)
        return max(ends, default=0.0)


def panel_from_timeline(timeline: Timeline, title: str | None = None) -> Panel:
    """Lanes ``copy`` (issue -> data arrival, ``c<i>``) and ``compute`` (``g<i>``), as in the seed's ASCII figure;
    phases from ``prologue_end`` / ``epilogue_start``."""
    steps = timeline.steps
    depth = timeline.num_stages
    copy = Lane("copy", tuple(Bar(s.copy_start, s.copy_end, f"c{s.index}", row=s.slot) for s in steps),
                caption=f"{depth} buffers" if depth > 1 else "")
    compute = Lane("compute", tuple(Bar(s.compute_start, s.compute_end, f"g{s.index}") for s in steps))
    bounds = [(0, timeline.prologue_end), (timeline.prologue_end, timeline.epilogue_start),
              (timeline.epilogue_start, timeline.makespan)]
    phases = tuple(Phase(kind, a, b) for kind, (a, b) in zip(PHASE_KINDS, bounds) if b > a)
    return Panel(title=title or (f"num_stages={depth}" + (" (no overlap)" if depth == 1 else "")),
                 lanes=(copy, compute), phases=phases,
                 subtitle=(f"makespan {_fmt(timeline.makespan)} (x{timeline.speedup:.2f})   "
                           f"steady interval {timeline.steady_interval:.1f}   "
                           f"compute util {100 * timeline.compute_utilization:.0f}%"),
                 end_marker=timeline.makespan)


def pack_tracks(bars: Sequence[Bar]) -> tuple[int, ...]:
    """Sub-row index for each bar so that bars on one sub-row never overlap (touching is fine); greedy by start
    time, which uses the minimum number of sub-rows.  When every bar carries a ``row`` those rows are used as given."""
    if bars and all(b.row is not None for b in bars):
        return tuple(int(b.row) for b in bars)  # type: ignore[arg-type]
    order = sorted(range(len(bars)), key=lambda i: (bars[i].start, bars[i].end))
    track_end: list[float] = []
    tracks = [0] * len(bars)
    for i in order:
        for t, end in enumerate(track_end):
            if end <= bars[i].start:
                track_end[t] = bars[i].end
                tracks[i] = t
                break
        else:
            tracks[i] = len(track_end)
            track_end.append(bars[i].end)
    return tuple(tracks)


def lane_color(name: str) -> str:
    return LANE_COLORS.get(name) or _PALETTE[sum(map(ord, name)) % len(_PALETTE)]


def draw_space_time(panels: Sequence[Panel], path: str | Path, title: str = "", *, xlabel: str = "cycles",
                    dpi: int = 120, lane_descriptions: Mapping[str, str] | None = None) -> Path:
    """``lane_descriptions``: a lane name's legend text (beyond ``LANE_DESCRIPTIONS``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    panels = tuple(panels)
    if not panels:
        raise ValueError("draw_space_time: nothing to draw")
    layouts = [_layout(p) for p in panels]
    x_end = max(p.end for p in panels) or 1.0
    heights = [max(1.2, 0.42 * rows + 0.9) for rows, _ in layouts]
    width_in = 12.0
    fig = Figure(figsize=(width_in, sum(heights) + 1.3), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False, height_ratios=heights)[:, 0]
    # data units per pixel, to decide whether a label fits in its bar
    px_per_unit = width_in * dpi * 0.86 / (x_end * 1.06)

    lane_names: list[str] = []
    for ax, panel, (rows, placed) in zip(axes, panels, layouts):
        for phase in panel.phases:
            ax.axvspan(phase.start, phase.end, color=PHASE_COLORS.get(phase.kind, "#eeeeee"), alpha=0.55, lw=0, zorder=0)
            span_px = (phase.end - phase.start) * px_per_unit
            fitting = [t for t in _phase_texts(phase.kind) if span_px > 5.5 * len(t) + 4]
            if fitting:
                ax.text((phase.start + phase.end) / 2, -0.35, fitting[0],
                        ha="center", va="center", fontsize=7.5, color="#555555", zorder=3)
        ticks, tick_labels = [], []
        for lane, y0, n_tracks, tracks in placed:
            if lane.name not in lane_names:
                lane_names.append(lane.name)
            color = lane_color(lane.name)
            for bar, track in zip(lane.bars, tracks):
                y = y0 + track
                ax.barh(y + 0.5, bar.end - bar.start, left=bar.start, height=0.78,
                        color=color, edgecolor="white", linewidth=0.8, zorder=2)
                if bar.label and (bar.end - bar.start) * px_per_unit > 6.5 * len(bar.label) + 4:
                    ax.text((bar.start + bar.end) / 2, y + 0.5, bar.label, ha="center", va="center",
                            fontsize=7.5, color="white", zorder=4)
            ticks.append(y0 + n_tracks / 2)
            caption = lane.caption or (f"{n_tracks} overlap" if n_tracks > 1 else "")
            tick_labels.append(f"{lane.name}\n({caption})" if caption else lane.name)
            if y0 > 0:
                ax.axhline(y0, color="#bbbbbb", lw=0.6, zorder=1)
        if panel.end_marker is not None:
            ax.axvline(panel.end_marker, color="#333333", ls="--", lw=0.9, zorder=3)
        # first lane on top; room above it for the phase labels when there are phases
        ax.set_ylim(rows + 0.1, -0.7 if panel.phases else -0.1)
        ax.set_yticks(ticks, tick_labels, fontsize=8.5)
        ax.tick_params(axis="y", length=0)
        ax.set_title(panel.title, loc="left", fontsize=10, fontweight="bold")
        if panel.subtitle:
            ax.set_title(panel.subtitle, loc="right", fontsize=9, color="#333333")
        ax.grid(axis="x", color="#dddddd", lw=0.5, zorder=0)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[-1].set_xlim(0, x_end * 1.02)
    axes[-1].set_xlabel(xlabel)

    descriptions = {**LANE_DESCRIPTIONS, **(lane_descriptions or {})}
    handles = [Patch(color=lane_color(n), label=descriptions.get(n, n)) for n in lane_names]
    kinds = [k for k in PHASE_KINDS if any(ph.kind == k for p in panels for ph in p.phases)]
    handles += [Patch(color=PHASE_COLORS[k], alpha=0.55, label=PHASE_LABELS[k]) for k in kinds]
    if any(p.end_marker is not None for p in panels):
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], color="#333333", ls="--", lw=0.9, label="end (makespan)"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8.5, frameon=False)
    if title:
        fig.suptitle(title, fontsize=12)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", dpi=dpi)
    return out


def _layout(panel: Panel) -> tuple[int, list[tuple[Lane, int, int, tuple[int, ...]]]]:
    """Rows used by a panel and, per lane, (lane, first row, sub-row count, sub-row per bar)."""
    placed = []
    row = 0
    for lane in panel.lanes:
        tracks = pack_tracks(lane.bars)
        n_tracks = max(tracks, default=0) + 1
        placed.append((lane, row, n_tracks, tracks))
        row += n_tracks
    return row, placed


def _phase_texts(kind: str) -> tuple[str, ...]:
    return (PHASE_LABELS.get(kind, kind), PHASE_SHORT_LABELS.get(kind, kind))


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
