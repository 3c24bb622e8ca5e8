"""Write the static dashboard site from a history database, through jinja2 templates.

Contract: ``build_site(conn, out_dir, source, exclude=DEFAULT_EXCLUDE)`` reads every stored series
once (rows that cannot be read - bad JSON, all-zero samples - are left out and named, never a
crash), leaves out the suites matching ``exclude`` (scratch suites by default: ``*tmp*``,
``*scratch*``), and writes into ``out_dir`` (created) from harness/dashboard/templates/:
- ``index.html``: the verdict per workload (coloured, harness/results/compare/verdict_words.py), the
  testbeds (host CPU included), the best config per problem from clean runs (% of peak, or of
  bandwidth for a memory-bound kernel), the headline stage curves, the suites;
- ``regressions.html``: every detected level change between commits with its runs and commits
  (and what differs in how they measured, where something does), the slower ones and the faster
  ones under headings that count them as the nav's link does; apart from them, the level
  changes whose two levels share a commit (SAME COMMIT: the environment or the run's mode);
- ``stages.html``: the stage curves of every suite that sweeps num_stages, per testbed,
  measured throughput beside modeled cycles (a model);
- ``suite-<name>.html``: one trend chart per case and testbed;
- ``schedule.html`` + ``schedule-<n>.png``: the compiler schedule figures (MODEL) each backend
  draws (``BackendTraits.schedule_figure``) from the newest run holding schedule models.
Every page has the same nav (it wraps, so it fits any width); every chart is inline SVG or a
PNG beside the page: no script, no network, the pages work from ``file://``.  Returns a
``Site``: the written paths (index first) and the notes (rows and suites left out).  An empty
database raises ``HistoryError`` (nothing to show; it says how to add runs).
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
    notes = []
    if skipped:
        shown = "; ".join(skipped[:SHOWN_SKIPPED]) + (f"; +{len(skipped) - SHOWN_SKIPPED} more" if len(skipped) > SHOWN_SKIPPED else "")
        notes.append(f"{len(skipped)} stored row(s) could not be read and were left out: {shown}")
    return notes


def _method_of() -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """A record's measurement method as compare reads it (method_match.method_of with the backend's traits)."""
    from ..core.backend_traits import TraitsCatalog
    from ..results.compare.method_match import method_of

    traits = TraitsCatalog.from_entry_points()
    return lambda rec: dict(method_of(rec, traits.get(str(rec.get("backend") or ""))))


def _schedule(groups, out: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    from ..core.backend_traits import TraitsCatalog

    traits = TraitsCatalog.from_entry_points()
    figures, written = [], []
    for n, (backend, title, label, records) in enumerate(groups):
        try:
            path = traits.get(backend).schedule_figure(records, out / f"schedule-{n}.png", title)
        except (KeyError, ValueError) as exc:
            figures.append({"title": title, "why": f"no figure ({exc})", "path": None})
            continue
        if path is None:
            figures.append({"title": f"{backend} {title}", "why": "this backend draws no schedule figure", "path": None})
            continue
        written.append(Path(path))
        figures.append({"backend": backend, "title": title, "label": label, "path": Path(path).name})
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

