"""Write the static dashboard site from a history database.

Contract: ``build_site(conn, out_dir, source)`` writes, into ``out_dir`` (created):
- ``index.html``: the testbeds and run count; the best config per problem from clean runs
  of a commit (harness/dashboard/best.py) with TFLOP/s and % of peak beside the vendor
  library of the same run, and the runs left out with their reasons; the stage curves per
  testbed side by side (measured throughput with the vendor line, next to modeled cycles, a
  model; each panel says which, and whether its run is clean); links to every suite page and
  to the schedule figures;
- ``suite-<name>.html``: per suite, one trend chart per case and testbed (median per run,
  level changes marked, the minimum-effect band around the current level);
- ``schedule.html`` + ``schedule-<n>.png``: the compiler schedule figures (MODEL; the Ascend
  Z3 schedule) drawn by each backend's ``BackendTraits.schedule_figure`` from the newest
  run that holds schedule models.
Every chart is inline SVG (or a PNG file beside the page): no script, no network, so the
pages work from ``file://``.  Returns the list of written paths.  An empty database
raises ``HistoryError`` (nothing to show; it says how to add runs).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Iterable

from tlbench.harness.dashboard import data
from tlbench.harness.dashboard.best import BestTable, best_table
from tlbench.harness.dashboard.svg import curve_chart, trend_chart
from tlbench.harness.results.history.query import run_count, testbeds
from tlbench.harness.results.history.schema import HistoryError

CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#243447;color:#fff;padding:10px 18px}header a{color:#cde;margin-right:14px}
main{padding:10px 18px}h2{margin:22px 0 8px;border-bottom:1px solid #ddd}
.grid{display:flex;flex-wrap:wrap;gap:10px}.card{background:#fff;border:1px solid #e3e3e3;border-radius:4px;padding:4px}
.cap{font-size:12px;color:#555;margin:2px 4px 4px}table{border-collapse:collapse;background:#fff}
td,th{border:1px solid #ddd;padding:3px 8px;font-size:13px;text-align:left}th{background:#eef2f6}
.num{text-align:right;font-variant-numeric:tabular-nums}.model{color:#8a4b08}.note{color:#666;font-size:12px}
svg.chart text{font:10px sans-serif;fill:#333}svg.chart .t{font:bold 11px sans-serif}
svg.chart .yl{text-anchor:end}svg.chart .xl{text-anchor:middle}svg.chart .bg{fill:#fff;stroke:#ccc}
svg.chart .g{stroke:#eee}svg.chart .ln{fill:none;stroke:#1f77b4;stroke-width:1.4}svg.chart .dot{fill:#1f77b4}
svg.chart .step{stroke:#d62728;stroke-dasharray:4 3}svg.chart .stept{fill:#d62728;font-weight:bold}
svg.chart .fail{fill:#d62728;font-weight:bold;text-anchor:middle}svg.chart .n{fill:#999}svg.chart .lg{font-size:10px}
svg.chart .band{fill:#2ca02c;fill-opacity:.12;stroke:none}svg.chart .bandt{fill:#2a7a2a;font-size:9px}
svg.chart .ref{stroke:#555;stroke-width:1.6;stroke-dasharray:6 3}
.cap{overflow-wrap:anywhere;max-width:460px}td{overflow-wrap:anywhere}.warn{color:#a33}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _slug(name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]+", "-", name).strip("-") or "suite"


def _page(title: str, nav: str, body: Iterable[str]) -> str:
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
            f"<header><strong>tlbench</strong> &middot; {_e(title)}<br>{nav}</header><main>" + "".join(body) + "</main></body></html>\n")


def _nav(suites: Iterable[str], has_schedule: bool) -> str:
    links = ['<a href="index.html">overview</a>'] + [f'<a href="suite-{_slug(s)}.html">{_e(s)}</a>' for s in suites]
    if has_schedule:
        links.append('<a href="schedule.html">schedules (model)</a>')
    return "".join(links)


def _left_out(table: BestTable) -> str:
    if not table.left_out:
        return ""
    items = "".join(f"<li>{_e(q.label)}: {_e('; '.join(q.reasons))}</li>" for q in table.left_out)
    return (f'<details><summary class="note">{len(table.left_out)} runs with device items left out of this table '
            f"(not clean runs of a commit); {table.clean_runs} clean runs used</summary><ul class=note>{items}</ul></details>")


def _best_table(table: BestTable) -> str:
    rows = table.rows
    if not rows:
        return ('<p class="note">No clean device run in the history: best configs need measured device time from a '
                "committed, clean tree.</p>" + _left_out(table))
    head = ("<table><tr><th>testbed</th><th>problem</th><th>best config (fastest in a clean run)</th><th>median</th>"
            "<th>TFLOP/s</th><th>% of peak</th><th>vendor median (same run)</th><th>vendor % of peak</th><th>vs vendor</th></tr>")
    cells = []
    for r in rows:
        versus = f"{r.vendor_ms / r.median_ms:.3f}x" if r.vendor_ms else ""
        cells.append(
            f"<tr><td>{_e(r.testbed.describe())}</td><td>{_e(r.problem)}</td><td>{_e(r.case_id)}<br><span class=note>{_e(r.run_label)}</span></td>"
            f"<td class=num>{r.median_ms:.4g} ms</td><td class=num>{'' if r.tflops is None else f'{r.tflops:.1f}'}</td>"
            f"<td class=num>{_e(r.pct_of_peak)}</td><td class=num>{'' if r.vendor_ms is None else f'{r.vendor_ms:.4g} ms'}</td>"
            f"<td class=num>{_e(r.vendor_pct)}</td><td class=num>{versus}</td></tr>")
    return (head + "".join(cells) + "</table><p class=note>Clean run: committed, no uncommitted changes, no test-only "
            "setting, not a partial recovery, no device fault or hang. vs vendor: vendor median / kernel median, both from "
            "the run named (above 1x: the kernel is faster). % of peak: achieved FLOP/s over the device profile's dense "
            "peak for the dtype (datasheet or calibrated, as the record says); \"peak unknown\" where no published figure "
            "exists.</p>" + _left_out(table))


def _stage_section(panels: list[data.StagePanel]) -> str:
    if not panels:
        return '<p class="note">No run in the history swept num_stages.</p>'
    cards = []
    for p in panels:
        klass = " model" if "model" in p.metric else ""
        chart = curve_chart(p.curves, "num_stages", p.unit, f"{p.testbed.backend}: {p.problem}",
                            x_tick_labels=None, reference=p.reference)
        warn = (f'<br><span class="warn">not a clean run: {_e("; ".join(p.not_clean))}</span>' if p.not_clean else "")
        if p.hidden_tiles:
            warn += f"<br>the {len(p.curves)} tiles with the best point; {p.hidden_tiles} more swept (suite pages)"
        cards.append(f'<div class="card"><div class="cap{klass}"><strong>{_e(p.metric)}</strong><br>'
                     f"{_e(p.testbed.describe())}<br>{_e(p.run_label)}{warn}</div>{chart}</div>")
    return '<div class="grid">' + "".join(cards) + "</div>"


def _suite_page(suite: str, panels: list[data.TrendPanel], nav: str) -> str:
    body = [f"<h2>suite {_e(suite)}: {len(panels)} series</h2>",
            '<p class="note">Median per run (oldest left); green band: the current level (median since the last level '
            "change) times or divided by 1 + the minimum effect - a run inside it is not a change; the y axis always spans "
            "the band, so noise never fills the chart; red dashed line: a level change found by step detection "
            "(piecewise-constant fit, changes under the minimum effect ignored); red x: the item failed in that run.</p>"]
    groups: dict[tuple[int, str], list[data.TrendPanel]] = {}
    for p in panels:
        groups.setdefault((p.testbed.testbed_id, p.kind), []).append(p)
    for (_, kind), items in sorted(groups.items()):
        body.append(f"<h3>{_e(items[0].testbed.describe())} &middot; {_e(kind)}</h3><div class=grid>")
        for p in items:
            chart = trend_chart(p.values, p.labels, p.unit, p.case_id, steps=p.steps, band=p.band)
            body.append(f'<div class="card">{chart}<div class="cap">{_e(p.case_id)}<br>{_e(p.last)}</div></div>')
        body.append("</div>")
    return _page(f"suite {suite}", nav, body)


def _schedule_page(groups, out: Path, nav: str) -> tuple[str, list[Path]]:
    from tlbench.harness.core.backend_traits import TraitsCatalog

    traits = TraitsCatalog.from_entry_points()
    body = ["<h2>Compiler schedules (MODEL, not measured)</h2>",
            '<p class="note">Each backend draws its own compiler schedule model (modeled cycles, never a time), '
            "one panel per num_stages.</p>"]
    written = []
    for n, (backend, title, label, records) in enumerate(groups):
        try:
            path = traits.get(backend).schedule_figure(records, out / f"schedule-{n}.png", title)
        except (KeyError, ValueError) as exc:
            body.append(f"<p class=note>{_e(title)}: no figure ({_e(exc)})</p>")
            continue
        if path is None:
            body.append(f"<p class=note>{_e(backend)} {_e(title)}: this backend draws no schedule figure</p>")
            continue
        written.append(Path(path))
        body.append(f'<div class="card"><div class="cap model">{_e(backend)}: {_e(title)} &middot; {_e(label)}</div>'
                    f'<img class="figure" src="{_e(Path(path).name)}" alt="schedule {_e(title)}" style="max-width:100%"></div>')
    return _page("schedules (model)", nav, body), written


def build_site(conn, out_dir: str | Path, source: str = "") -> list[Path]:
    runs = run_count(conn)
    if runs == 0:
        raise HistoryError(f"{source or 'the history'} holds no runs; add some with `tlbench history add RUN.json` first")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    trends = data.trend_panels(conn)
    groups = data.schedule_groups(conn)
    nav = _nav(trends, bool(groups))
    written: list[Path] = []
    for suite, panels in trends.items():
        path = out / f"suite-{_slug(suite)}.html"
        path.write_text(_suite_page(suite, panels, nav), encoding="utf-8")
        written.append(path)
    if groups:
        page, pngs = _schedule_page(groups, out, nav)
        (out / "schedule.html").write_text(page, encoding="utf-8")
        written += [out / "schedule.html", *pngs]
    beds = "".join(f"<li>[{t.testbed_id}] {_e(t.describe())}</li>" for t in testbeds(conn))
    suites = "".join(f'<li><a href="suite-{_slug(s)}.html">{_e(s)}</a>: {len(p)} series</li>' for s, p in trends.items())
    body = [f"<p>{runs} runs from <code>{_e(source)}</code>.</p><h2>Testbeds</h2><ul>{beds}</ul>",
            "<h2>Best config per problem</h2>", _best_table(best_table(conn)),
            "<h2>Stage curves per testbed</h2>",
            '<p class="note">The widest num_stages sweep of each testbed (a clean run when there is one). Side by side, '
            "never on one axis: measured throughput (higher is better; dashed line: the vendor library in the same run) "
            "and the compiler schedule model (modeled cycles per core, lower is better) are different quantities.</p>",
            _stage_section(data.stage_panels(conn)),
            f"<h2>Suites</h2><ul>{suites}</ul>"]
    index = out / "index.html"
    index.write_text(_page("dashboard", nav, body), encoding="utf-8")
    return [index, *written]
