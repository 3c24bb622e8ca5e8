"""The stage report's figures (matplotlib imported lazily, through its object API).

Contract: ``write_pngs(report, records, png_dir)`` writes one space-time PNG per tile group and
returns the paths; ``plot_stage_curves(report, path)`` draws every group's speedup over its own
num_stages=1 point.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from ..core.backend_traits import TraitsCatalog
from .stage_types import StageReport


def write_pngs(report: StageReport, records: Iterable[Mapping[str, Any]], png_dir: str | Path,
               traits_of: Callable[[str], Any] | None = None, prefix: str = "") -> list[Path]:
    from . import fit_plot

    traits_of = traits_of or TraitsCatalog.from_entry_points().get
    by_case = {(r.get("backend"), r.get("case_id")): r for r in records}
    written = []
    for group in report.groups:
        title = f"{group.backend} {group.kernel} {group.problem}, tile {group.tile}"
        out = Path(png_dir) / f"{prefix}{group.key}-stages.png"
        if group.latencies is not None:
            recs = [by_case[(group.backend, r.case_id)] for r in group.rows
                    if r.loop_form == "auto" and (r.num_stages or 0) >= 1 and (group.backend, r.case_id) in by_case]
            figure = traits_of(group.backend).schedule_figure(recs, out, title)
            if figure is not None:
                written.append(figure)
        elif group.fit is not None:
            written.append(fit_plot.write_fit_png(group.fit, out, title=title))
    return written


def plot_stage_curves(report: StageReport, path: str | Path) -> Path:
    """One panel per (backend, problem, basis), one line per tile; groups without a 1-stage point are left out."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels: dict[tuple[str, str, str], list] = {}
    for group in report.groups:
        points = [(r.num_stages, r.speedup_vs_1) for r in group.rows
                  if r.loop_form == "auto" and r.num_stages is not None and r.speedup_vs_1]
        if points and group.basis != "none":
            panels.setdefault((group.backend, group.problem, group.basis), []).append((group.tile, sorted(points)))
    fig = Figure(figsize=(8.5, 3.6 * max(1, len(panels)) + 0.4), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(max(1, len(panels)), 1, squeeze=False)[:, 0]
    for ax, ((backend, problem, basis), series) in zip(axes, sorted(panels.items())):
        for tile, points in series:
            ax.plot(*zip(*points), marker="o", label=tile)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
        what = "device time (measured)" if basis == "device" else "modeled cycles (a model, not a time)"
        ax.set_title(f"{backend} {problem}: speedup over num_stages=1, from {what}", fontsize=10)
        ax.set_xlabel("num_stages")
        ax.set_ylabel("x vs num_stages=1")
        ax.legend(fontsize=8, frameon=False)
    if not panels:
        axes[0].text(0.5, 0.5, "no group has a num_stages=1 point to compare with", ha="center", va="center")
        axes[0].set_axis_off()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out
