"""Space-time PNG of the copy -> compute timeline model fitted to measured device times.

Contract: ``fit_panels(fit)``: one ``timeline_plot.Panel`` per measured num_stages, in ns;
``write_fit_png(fit, path, title=...)`` renders them and returns the path.  Every number drawn
is the model's and the figure says so.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterable

from . import timeline_fit
from . import timeline_model as models
from .timeline_plot import Panel, draw_space_time, panel_from_timeline
from ..results.report.table import format_seconds

FIT_DESCRIPTIONS = {"copy": "copy: issue -> data on chip (model)", "compute": "compute: one K step's MMA (model)"}
DEFAULT_SHOWN = 8


def fit_panels(fit: timeline_fit.Fit, iterations_shown: int = DEFAULT_SHOWN, stages: Iterable[int] | None = None) -> tuple[Panel, ...]:
    """One panel per num_stages (default: those measured) of the fitted timeline, in ns."""
    compute_ns = fit.compute_time * 1e9
    latency_ns = fit.latency_time * 1e9
    shown = max(1, min(iterations_shown, fit.iterations))
    panels = []
    for s in sorted(stages if stages is not None else fit.measured):
        drawn = models.simulate(shown, 0, latency_ns, compute_ns, s)
        whole = models.simulate(fit.iterations, 0, latency_ns, compute_ns, s)
        measured, predicted = fit.measured.get(s), fit.predicted.get(s)
        title = f"num_stages={s}"
        if measured and predicted:
            title += f": measured {format_seconds(measured)}, model {format_seconds(predicted)} ({(predicted - measured) / measured:+.1%})"
        subtitle = (f"model: {whole.steady_interval_bound:.0f} ns per K step in steady state, "
                    f"compute busy {whole.compute_utilization:.0%}")
        panels.append(replace(panel_from_timeline(drawn, title=title), subtitle=subtitle))
    return tuple(panels)


def write_fit_png(fit: timeline_fit.Fit, path: str | Path, *, title: str = "",
                  iterations_shown: int = DEFAULT_SHOWN,
                  stages: Iterable[int] | None = None) -> Path:
    panels = fit_panels(fit, iterations_shown, stages)
    shown = min(iterations_shown, fit.iterations)
    model = (f"copy -> compute timeline MODEL fitted to device medians (latency/compute "
             f"{fit.latency_ratio:.2f}), first {shown} of {fit.iterations} K steps")
    heading = "\n".join(filter(None, [title, model]))
    return draw_space_time(panels, path, heading, xlabel="ns of kernel time (model scaled to the measured medians; all waves of blocks folded into one K loop)",
                           lane_descriptions=FIT_DESCRIPTIONS)
