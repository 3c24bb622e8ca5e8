"""Write the static dashboard site from a history database, through jinja2 templates.

Contract: ``build_site(conn, out_dir, source, exclude, min_effect)`` reads every stored series
once (unreadable rows left out and named), leaves out suites matching ``exclude`` and writes
``index.html``, ``regressions.html``, ``stages.html``, ``suite-<name>.html`` and
``schedule.html`` (inline SVG or PNGs: no script, no network).  Returns a ``Site`` (paths, index
first, and notes); an empty database raises ``HistoryError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import data, stages, watch
from .best import best_table
from .svg import curve_chart, trend_chart
from ..results.history.clean_runs import run_quality
from ..results.history.query import run_count, series, testbeds
from ..results.history.schema import HistoryError
from ..results.report.table import format_seconds
from ..results.report.text_table import split_id

DEFAULT_EXCLUDE = data.SCRATCH
TEMPLATES = Path(__file__).with_name("templates")
SHOWN_SKIPPED = 5
CHART_WIDTH = 430  # two stage charts side by side in a 1000 px window


@dataclass(frozen=True)
class ScheduleFigure:
    """One entry of schedule.html: the figure's file name, or why there is none."""

    title: str
    path: str | None
    why: str = ""
    backend: str = ""
    label: str = ""


@dataclass(frozen=True)
class Site:
    written: list[Path]
    notes: list[str] = field(default_factory=list)


def slug(name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]+", "-", name).strip("-") or "suite"


def _environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(slug=slug, seconds=format_seconds, run=watch.run_words,
                       config=lambda case_id, problem: split_id(case_id, problem)[1])
    return env


@dataclass(frozen=True)
class _Chart:
    """A stage panel with its chart drawn (the templates read the panel's fields and ``chart``)."""

    panel: Any
    chart: str

    def __getattr__(self, name: str) -> Any:
        return getattr(self.panel, name)


def _stage_chart(p: stages.StagePanel) -> _Chart:
    title = f"{p.testbed.backend} [{p.testbed.testbed_id}]: {p.problem}"
    return _Chart(p, curve_chart(p.curves, "num_stages", p.unit, title, x_tick_labels=None, reference=p.reference,
                                 width=CHART_WIDTH))


def _notes(skipped: Sequence[str]) -> list[str]:
    if not skipped:
        return []
    more = f"; +{len(skipped) - SHOWN_SKIPPED} more" if len(skipped) > SHOWN_SKIPPED else ""
    return [f"{len(skipped)} stored row(s) could not be read and were left out: {'; '.join(skipped[:SHOWN_SKIPPED])}{more}"]


def _method_of() -> Callable[[Mapping[str, Any]], dict[str, object]]:
    """A record's measurement method as compare reads it (method_match.method_of with the backend's traits)."""
    from ..core.backend_traits import TraitsCatalog
    from ..results.compare.method_match import method_of

    traits = TraitsCatalog.from_entry_points()
    return lambda rec: dict(method_of(rec, traits.get(str(rec.get("backend") or ""))))


def _schedule(groups, out: Path) -> tuple[list[ScheduleFigure], list[Path]]:
    from ..core.backend_traits import TraitsCatalog

    traits = TraitsCatalog.from_entry_points()
    figures: list[ScheduleFigure] = []
    written: list[Path] = []
    for n, (backend, title, label, records) in enumerate(groups):
        try:
            path = traits.get(backend).schedule_figure(records, out / f"schedule-{n}.png", title)
        except (KeyError, ValueError) as exc:
            figures.append(ScheduleFigure(title, None, f"no figure ({exc})"))
            continue
        if path is None:
            figures.append(ScheduleFigure(f"{backend} {title}", None, "this backend draws no schedule figure"))
            continue
        written.append(Path(path))
        figures.append(ScheduleFigure(title, Path(path).name, backend=backend, label=label))
    return figures, written


def _suite_groups(panels: Iterable[data.TrendPanel]) -> list[tuple[str, list[_Chart]]]:
    groups: dict[tuple[int, str], list[_Chart]] = {}
    for p in panels:
        chart = trend_chart(p.values, p.labels, p.unit, p.case_id, steps=p.steps, band=p.band)
        groups.setdefault((p.testbed.testbed_id, p.kind), []).append(_Chart(p, chart))
    return [(f"[{bed}] {items[0].testbed.describe()} · {kind}", items) for (bed, kind), items in sorted(groups.items())]


def build_site(conn, out_dir: str | Path, source: str = "", exclude: Sequence[str] = DEFAULT_EXCLUDE,
               min_effect: float = 0.05) -> Site:
    runs = run_count(conn)
    if runs == 0:
        raise HistoryError(f"{source or 'the history'} holds no runs; add some with `tlbench history add RUN.json` first")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    skipped: list[str] = []
    stored = series(conn, skipped=skipped)
    kept = [s for s in stored if data.keep_suite(s.suite, exclude)]
    excluded = sorted({s.suite for s in stored} - {s.suite for s in kept})
    quality = run_quality(conn)
    trends = data.trend_panels(kept, min_effect)
    changes = watch.regressions(kept, min_effect, _method_of())
    panels = [_stage_chart(p) for p in stages.stage_panels(kept, quality)]
    groups = stages.schedule_groups(kept)
    env = _environment()
    nav = ([{"href": "index.html", "text": "overview", "title": "dashboard"},
            {"href": "regressions.html", "text": f"Regressions ({sum(c.verdict == 'SLOWER' for c in changes)} slower, "
                                                 f"{sum(c.verdict == 'FASTER' for c in changes)} faster)",
             "title": "regressions"},
            {"href": "stages.html", "text": "Stage curves", "title": "stage curves"}]
           + [{"href": f"suite-{slug(s)}.html", "text": s, "title": f"suite {s}"} for s in trends]
           + ([{"href": "schedule.html", "text": "schedules (model)", "title": "schedules (model)"}] if groups else []))
    css = (TEMPLATES / "site.css").read_text(encoding="utf-8")
    common = {"nav": nav, "css": css, "notes": _notes(skipped), "min_effect": min_effect}
    beds = testbeds(conn)
    written: list[Path] = []

    def page(name: str, template: str, title: str, **values: Any) -> None:
        path = out / name
        path.write_text(env.get_template(template).render(title=title, **common, **values), encoding="utf-8")
        written.append(path)

    page("index.html", "index.html", "dashboard", runs=runs, source=source, excluded=excluded,
         workloads=watch.workloads(kept, changes), testbeds=beds, best=best_table(conn, kept),
         stages=[c for c in panels if c.panel in stages.headline([c.panel for c in panels])],
         suites=[(s, len(p)) for s, p in trends.items()])
    page("regressions.html", "regressions.html", "regressions", slower=[c for c in changes if c.verdict == "SLOWER"],
         faster=[c for c in changes if c.verdict == "FASTER"], same_commit=[c for c in changes if not c.code_change],
         testbeds=beds)
    page("stages.html", "stages.html", "stage curves", panels=panels)
    for suite, suite_panels in trends.items():
        page(f"suite-{slug(suite)}.html", "suite.html", f"suite {suite}", suite=suite, count=len(suite_panels),
             groups=_suite_groups(suite_panels))
    if groups:
        figures, pngs = _schedule(groups, out)
        page("schedule.html", "schedule.html", "schedules (model)", figures=figures)
        written += pngs
    left = [f"suites left out (scratch or --exclude; --include-all keeps them): {', '.join(excluded)}"] if excluded else []
    return Site(written, common["notes"] + left)

