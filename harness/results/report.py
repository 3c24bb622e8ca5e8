"""Render comparisons and single runs: rich terminal tables, markdown, PNG plots.

Contract: every function takes the data of ``harness.results.compare`` (``RunComparison``,
``AcrossBackends``) or a ``harness.results.store.Results`` and only formats it.
- ``print_*(data, console)``: a rich table on a ``rich.console.Console``.
- ``*_markdown(data) -> str``: GitHub markdown for CI step summaries and PR comments.
- ``plot_*(data, path) -> Path``: a PNG.  matplotlib is imported lazily, through its object
  API on the Agg canvas (no pyplot, no global backend switch).
Times are printed as times (``render.format_seconds``), Ascend model numbers as
``cyc (model)``; a speedup is a ratio of one backend's own numbers and is labelled with
the metric it came from.  Device time and modeled cycles never share a number or an axis.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from harness.core.backend_traits import TraitsCatalog
from harness.results.compare import (
    DEVICE_TIME,
    RUN_RATIO,
    TIME,
    VENDOR_RATIO,
    AcrossBackends,
    Drift,
    ModelChange,
    ItemComparison,
    Judgement,
    RunComparison,
    Verdict,
    problem_of,
)
from harness.results.table import Row, format_seconds, rows_from_records
from harness.results.store import Results

VERDICT_ORDER = [Verdict.FAILED, Verdict.SLOWER, Verdict.NOISY, Verdict.FASTER, Verdict.NEW, Verdict.MISSING, Verdict.SAME]
VERDICT_STYLE = {
    Verdict.FAILED: "bold red",
    Verdict.SLOWER: "bold red",
    Verdict.NOISY: "yellow",
    Verdict.FASTER: "green",
    Verdict.NEW: "cyan",
    Verdict.MISSING: "magenta",
    Verdict.SAME: "dim",
}
VERDICT_COLOR = {
    Verdict.FAILED: "#b2182b",
    Verdict.SLOWER: "#d6604d",
    Verdict.NOISY: "#e6ab02",
    Verdict.FASTER: "#1a9850",
    Verdict.NEW: "#4393c3",
    Verdict.MISSING: "#9970ab",
    Verdict.SAME: "#9e9e9e",
}
TILE_STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D")]
STAGE_SLOTS = ["auto-s0", "auto-s1", "auto-s2", "auto-s3", "auto-s4"]
EXTRA_SLOTS = ["manual", "serial"]


# -- small formatters -----------------------------------------------------------------------


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "cycles":
        return f"{value:,.0f} cyc (model)"
    return format_seconds(value)


def format_change(judgement: Judgement | None) -> str:
    if judgement is None:
        return "-"
    p = "n/a" if judgement.p_value is None else f"{judgement.p_value:.2g}"
    return f"{judgement.change:+.1%} (p={p})"


def _item_label(item: ItemComparison) -> str:
    return f"{item.key.kind}-{item.key.backend}-{item.key.case_id}"


def _sorted_items(items: Iterable[ItemComparison]) -> list[ItemComparison]:
    rank = {v: i for i, v in enumerate(VERDICT_ORDER)}
    return sorted(items, key=lambda i: (rank[i.verdict], i.key.suite, i.key.backend, i.key.kind, i.key.case_id))


def _note(item: ItemComparison) -> str:
    decisive = item.decisive
    parts = [decisive.reason] if decisive is not None else []
    if item.detail:
        parts.append(item.detail)
    return "; ".join(parts)


BASIS_LABEL = {TIME: "time", VENDOR_RATIO: "ratio to vendor", RUN_RATIO: "ratio to run"}


def _decided(item: ItemComparison) -> str:
    basis = BASIS_LABEL.get(item.decided_by or "", "-")
    return basis if basis == "-" or item.rule == "rank test" else f"{basis}, {item.rule}"


def comparison_rows(cmp: RunComparison) -> list[list[str]]:
    """verdict, item, base median, new median, change of time, change of ratio to vendor,
    decided by, note: one list of cells per item, regressions first."""
    rows = []
    for item in _sorted_items(cmp.items):
        time = item.time
        rows.append(
            [
                item.verdict.value + ("" if item.gates or item.verdict is Verdict.SAME else " (not gated)"),
                _item_label(item),
                format_seconds(time.base_median) if time else "-",
                format_seconds(time.new_median) if time else "-",
                format_change(time),
                format_change(item.relative),
                _decided(item),
                _note(item),
            ]
        )
    return rows


COMPARISON_HEADER = ["verdict", "item", "base median", "new median", "time change", "relative change", "decided by", "why"]


def summary_line(cmp: RunComparison) -> str:
    counts = ", ".join(f"{n} {v.value}" for v, n in cmp.counts().items() if n)
    gate = f"{len(cmp.regressions)} regression(s)" if cmp.has_regression else "no regression"
    if cmp.gating_shifts:
        gate += f", {len(cmp.gating_shifts)} WHOLE-RUN SHIFT(s)"
    t = cmp.thresholds
    overrides = "".join(f", {s}: {e:.0%}" for s, e in sorted(t.min_effect_by_suite.items()))
    return (
        f"{gate}; {counts or 'no items'}; Mann-Whitney U p < {t.alpha:g} and median change >= "
        f"{t.min_effect:.0%}{overrides}; items with rounds: between-round t-test within this pair's resolution; "
        f"compile items: min-of-n factor"
    )


def drift_line(drift: Drift, min_effect: float) -> str:
    vendor = f", the vendor item {drift.vendor_change:+.1%}" if drift.vendor_change is not None else ""
    line = (
        f"{drift.backend} {drift.kind} [{drift.suite}]: the {drift.items} kernels moved {drift.change:+.1%} together "
        f"(geometric mean){vendor}; items are judged relative to their run"
    )
    if drift.spread is not None and drift.noise_floor > min_effect:
        line += (
            f"; their item-to-item spread is ±{drift.spread:.1%}, so a relative change under {drift.noise_floor:.0%} "
            "is NOISY here (this pair of runs cannot resolve less)"
        )
    elif drift.spread is not None:
        line += f"; item-to-item spread ±{drift.spread:.1%}"
    return line


def model_change_line(change: ModelChange) -> str:
    ii = f", loop II {change.base_ii} -> {change.new_ii} cyc" if change.base_ii != change.new_ii else ""
    return (
        f"{change.key.kind}-{change.key.backend}-{change.key.case_id}: modeled {change.base_cycles:,.0f} -> "
        f"{change.new_cycles:,.0f} cyc/core ({change.new_cycles / change.base_cycles - 1:+.1%}){ii} (model, not gated)"
    )


def _testbed_lines(cmp: RunComparison) -> list[str]:
    lines = []
    for pair in cmp.testbeds:
        if pair.differences:
            lines.append(f"TESTBED MISMATCH {pair.backend}: {'; '.join(pair.differences)} (compared anyway, on request)")
        else:
            lines.append(f"testbed {pair.base.describe()}")
    drifts = [drift_line(d, cmp.thresholds.min_effect_for(d.suite)) for d in cmp.drifts]
    models = [f"schedule model changed: {model_change_line(m)}" for m in cmp.model_changes]
    shifts = [s.words for s in cmp.shifts if s.verdict != "NONE"]
    return lines + shifts + drifts + models + list(cmp.notes)


# -- terminal (rich) ------------------------------------------------------------------------


def _rich_table(
    title: str, header: Sequence[str], rows: Iterable[Sequence[str]], styles: Sequence[str] | None = None, keep: int = 0
):
    """A rich Table; the first ``keep`` columns never wrap (ids must stay greppable)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(title), title_justify="left", show_lines=False, header_style="bold")
    for index, name in enumerate(header):
        table.add_column(escape(name), overflow="fold", no_wrap=index < keep)
    for i, row in enumerate(rows):
        table.add_row(*(escape(str(cell)) for cell in row), style=styles[i] if styles else None)
    return table


def print_comparison(cmp: RunComparison, console: Any) -> None:
    console.print(f"tlbench compare  base {cmp.base_path}  new {cmp.new_path}", style="bold", markup=False)
    for line in _testbed_lines(cmp):
        console.print(line, style="red" if "MISMATCH" in line or "WHOLE-RUN" in line else None, highlight=False, markup=False)
    items = _sorted_items(cmp.items)
    styles = [VERDICT_STYLE[i.verdict] for i in items]
    console.print(_rich_table("per item (+ is slower)", COMPARISON_HEADER, comparison_rows(cmp), styles, keep=2))
    style = "bold red" if cmp.has_regression else "bold green"
    console.print(summary_line(cmp), style=style, highlight=False, markup=False)


def across_rows(ab: AcrossBackends) -> tuple[list[str], list[list[str]]]:
    header = ["problem", "tile", "loop"]
    for s in ab.backends:
        header += [f"{s.backend}: {s.metric.name}", f"{s.backend}: speedup vs own s1"]
    rows = []
    for row in ab.rows:
        cells = [row.problem, row.tile, row.loop_id]
        for s in ab.backends:
            point = s.point(row.case_id)
            cells.append(format_value(point.value, s.metric.unit) if point else "-")
            cells.append(f"{point.speedup:.2f}x" if point and point.speedup else "-")
        rows.append(cells)
    return header, rows


def best_lines(ab: AcrossBackends) -> list[str]:
    lines = []
    for s in ab.backends:
        for best in s.best:
            extra = f", {best.tflops:.1f} TFLOP/s" if best.tflops else ""
            vendor = s.vendor.get(best.problem)
            if vendor and s.metric.name == DEVICE_TIME:
                extra += f", {vendor / best.value:.2f}x of the vendor library"
            speed = f"{best.speedup:.2f}x vs s1" if best.speedup else "no s1/serial point"
            lines.append(
                f"{s.backend} best on {best.problem}: {best.tile} {best.loop_id} = "
                f"{format_value(best.value, s.metric.unit)} ({s.metric.name}), {speed}{extra}"
            )
    return lines


def metric_lines(ab: AcrossBackends) -> list[str]:
    lines = []
    for s in ab.backends:
        kind = "measured" if s.metric.measured else "MODEL, not a measurement"
        device = s.testbed.accelerator or "no accelerator"
        lines.append(f"{s.backend}: {s.metric.name} [{kind}; {s.metric.method}] on {device}, from {s.source}")
    return lines + list(ab.notes)


def print_across(ab: AcrossBackends, console: Any) -> None:
    console.print("[bold]tlbench compare --across-backends[/]: speedup of each config over its own 1-stage (or serial) point")
    for line in metric_lines(ab):
        console.print(line, highlight=False, markup=False)
    header, rows = across_rows(ab)
    console.print(_rich_table("stage table (each backend's own metric; speedups are ratios within one backend)", header, rows, keep=3))
    for line in best_lines(ab):
        console.print(line, style="bold", highlight=False, markup=False)


def _run_rows(results: Results) -> list[Row]:
    return rows_from_records([*results.records, *results.failed, *results.skipped], TraitsCatalog.from_entry_points().get)


RUN_HEADER = ["kind", "backend", "case", "median", "throughput", "plan", "status"]


def _row_cells(row: Row) -> list[str]:
    return [row.kind, row.backend, row.case_id, row.median, row.throughput, row.plan, row.status]


def run_summary(results: Results) -> str:
    return (
        f"{len(results.records)} timed, {len(results.failed)} failed, {len(results.skipped)} skipped; "
        f"backends {', '.join(results.backends)}"
    )


def print_run(results: Results, console: Any) -> None:
    console.print(f"tlbench report {results.path}", style="bold", markup=False)
    for backend in results.backends:
        console.print(f"testbed {results.testbed(backend).describe()}", highlight=False, markup=False)
    rows = _run_rows(results)
    styles = ["red" if r.status.startswith("FAILED") else ("dim" if r.status.startswith("skipped") else "") for r in rows]
    console.print(_rich_table("items", RUN_HEADER, [_row_cells(r) for r in rows], styles, keep=3))
    console.print(run_summary(results), highlight=False, markup=False)


# -- markdown -------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def comparison_markdown(cmp: RunComparison, title: str | None = None) -> str:
    head = title or f"tlbench compare: `{Path(cmp.base_path).name}` -> `{Path(cmp.new_path).name}`"
    mark = ":x:" if cmp.has_regression else ":white_check_mark:"
    out = [f"### {head}", "", f"{mark} **{summary_line(cmp)}**", ""]
    out += [f"- {line}" for line in _testbed_lines(cmp)]
    out.append("")
    rows = comparison_rows(cmp)
    shown = [r for r, i in zip(rows, _sorted_items(cmp.items)) if i.verdict is not Verdict.SAME]
    same = [r for r, i in zip(rows, _sorted_items(cmp.items)) if i.verdict is Verdict.SAME]
    if shown:
        out += [md_table(COMPARISON_HEADER, shown), ""]
    if same:
        out += [f"<details><summary>{len(same)} SAME</summary>", "", md_table(COMPARISON_HEADER, same), "", "</details>", ""]
    out.append(
        "Change is `new / base - 1` of the median (+ is slower). *Relative change*: each kernel's samples divided by "
        "a reference measured in its own run - the vendor item of its problem (*ratio to vendor*), else the geometric "
        "mean of the run's other kernels (*ratio to run*) - which cancels clock and load drift between processes; "
        "when it exists, it decides. A verdict needs Mann-Whitney U p < alpha AND a change of at least the minimum "
        "effect AND, with 6+ kernels, at least 4 robust SDs of the item-to-item spread."
    )
    return "\n".join(out) + "\n"


def across_markdown(ab: AcrossBackends) -> str:
    header, rows = across_rows(ab)
    out = ["### tlbench: stage speedup across backends", ""]
    out += [f"- {line}" for line in metric_lines(ab)]
    out += ["", md_table(header, rows), ""]
    out += [f"- **{line}**" for line in best_lines(ab)]
    out += ["", "Speedup = the backend's own 1-stage (or serial) value / this config's value, in that backend's metric."]
    return "\n".join(out) + "\n"


def run_markdown(results: Results) -> str:
    out = [f"### tlbench report: `{Path(results.path).name}`", ""]
    out += [f"- testbed {results.testbed(b).describe()}" for b in results.backends]
    out += [f"- {run_summary(results)}", "", md_table(RUN_HEADER, [_row_cells(r) for r in _run_rows(results)])]
    return "\n".join(out) + "\n"


# -- PNG plots ------------------------------------------------------------------------------


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out


def _slot(point_loop: str) -> float | None:
    """x position: s0..s4 at 0..4, manual and serial set apart at 5.5 and 6.5."""
    if point_loop in STAGE_SLOTS:
        return float(STAGE_SLOTS.index(point_loop))
    if point_loop in EXTRA_SLOTS:
        return 5.5 + EXTRA_SLOTS.index(point_loop)
    return None


def _stage_axis(ax) -> None:
    ax.set_xticks([0, 1, 2, 3, 4, 5.5, 6.5], ["0", "1", "2", "3", "4", "manual\n(stage/order)", "T.serial"])
    ax.set_xlim(-0.4, 6.9)
    ax.axvline(4.75, color="#cccccc", linewidth=0.8)
    ax.set_xlabel("num_stages of T.Pipelined (auto)  |  other loop forms")
    ax.grid(True, axis="y", alpha=0.3)


def _draw_tile_series(ax, series: list[tuple[float, float]], color: str, style: tuple[str, str], label: str) -> None:
    auto = sorted((x, y) for x, y in series if x <= 4)
    extra = [(x, y) for x, y in series if x > 4]
    if auto:
        ax.plot(*zip(*auto), linestyle=style[0], marker=style[1], color=color, label=label, linewidth=2, markersize=6)
    if extra:
        ax.plot(*zip(*extra), linestyle="none", marker=style[1], color=color, markersize=7, markerfacecolor="white",
                markeredgewidth=2)


def plot_across(ab: AcrossBackends, path: str | Path, traits_of: Callable[[str], Any] | None = None) -> Path:
    traits_of = traits_of or TraitsCatalog.from_entry_points().get
    problems = sorted({p.problem for s in ab.backends for p in s.points})
    fig = _figure(9.5, 4.6 * len(problems) + 0.6)
    axes = fig.subplots(len(problems), 1, squeeze=False)[:, 0]
    for ax, problem in zip(axes, problems):
        tiles = sorted({p.tile for s in ab.backends for p in s.points if p.problem == problem})
        for s in ab.backends:
            color = traits_of(s.backend).color
            source = "device time" if s.metric.measured else "modeled cycles"
            for t_index, tile in enumerate(tiles):
                series = [(_slot(p.loop_id), p.speedup) for p in s.points
                          if p.problem == problem and p.tile == tile and p.speedup and _slot(p.loop_id) is not None]
                if series:
                    _draw_tile_series(ax, series, color, TILE_STYLES[t_index % len(TILE_STYLES)],
                                      f"{s.backend} {tile} ({source})")
            for best in s.best:
                if best.problem == problem and best.speedup and _slot(best.loop_id) is not None:
                    ax.plot([_slot(best.loop_id)], [best.speedup], marker="*", markersize=18, color=color,
                            markeredgecolor="black", linestyle="none", zorder=5)
                    ax.annotate(f"{s.backend} best: {best.tile} {best.loop_id}", (_slot(best.loop_id), best.speedup),
                                textcoords="offset points", xytext=(8, 6), fontsize=8, color=color)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
        ax.margins(y=0.12)
        _stage_axis(ax)
        ax.set_ylabel("speedup over own 1-stage point (x)")
        ax.set_title(f"{problem}: each backend's speedup over its own num_stages=1", fontsize=11)
        ax.legend(fontsize=8, loc="upper left", frameon=False)
    measured = "\n".join(
        f"{s.backend}: {'measured device time' if s.metric.measured else 'modeled cycles/core (a model, not a time)'}"
        f" on {s.testbed.accelerator or 'no accelerator'}"
        for s in ab.backends
    )
    fig.suptitle(f"{measured}\nstar = each backend's best config; hollow markers = manual / T.serial loops", fontsize=9)
    return _save(fig, path)


def _run_panels(results: Results) -> list[tuple[str, str, str, list[dict[str, Any]], str]]:
    """(backend, problem, metric, records, y label): device TFLOP/s, compile seconds, modeled cycles."""
    grouped: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for rec in results.records:
        grouped[(rec["backend"], problem_of(rec), rec["kind"])].append(rec)
    panels = []
    for (backend, problem, kind), recs in sorted(grouped.items()):
        if kind == "device":
            panels.append((backend, problem, "tflops", recs, "TFLOP/s (device time, higher is better)"))
        else:
            panels.append((backend, problem, "compile", recs, "cold compile time, s (lower is better)"))
            if any(((r.get("plan") or {}).get("schedule_model") or {}).get("modeled_cycles_per_core") for r in recs):
                panels.append((backend, problem, "model", recs, "modeled cycles/core (MODEL, lower is better)"))
    return panels


def _panel_value(rec: dict[str, Any], metric: str) -> float | None:
    if metric == "tflops":
        return (rec.get("throughput") or {}).get("tflops")
    if metric == "model":
        return ((rec.get("plan") or {}).get("schedule_model") or {}).get("modeled_cycles_per_core")
    return (rec.get("summary") or {}).get("median")


def _tile_of(rec: dict[str, Any]) -> str:
    c = rec["config"]
    return f"{c['block_M']}x{c['block_N']}x{c['block_K']} t{c.get('threads')}"


def _loop_of(rec: dict[str, Any]) -> str:
    c = rec["config"]
    return f"auto-s{c['num_stages']}" if c.get("loop_form") == "auto" else str(c.get("loop_form"))


def plot_run(results: Results, path: str | Path) -> Path:
    panels = _run_panels(results)
    if not panels:
        raise ValueError(f"{results.path}: no timed items to plot")
    columns = min(2, len(panels))
    rows = (len(panels) + columns - 1) // columns
    fig = _figure(7.0 * columns, 4.4 * rows + 0.5)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax, (backend, problem, metric, recs, ylabel) in zip(axes, panels):
        kernels = [r for r in recs if r.get("config")]
        for index, tile in enumerate(sorted({_tile_of(r) for r in kernels})):
            series = [(_slot(_loop_of(r)), _panel_value(r, metric)) for r in kernels if _tile_of(r) == tile]
            series = [(x, y) for x, y in series if x is not None and y]
            _draw_tile_series(ax, series, f"C{index}", TILE_STYLES[index % len(TILE_STYLES)], tile)
        for vendor in (r for r in recs if r.get("kernel") == "vendor"):
            value = _panel_value(vendor, metric)
            if value:
                ax.axhline(value, color="black", linestyle="--", linewidth=1.2, label=f"vendor library ({value:.0f} TFLOP/s)")
        _stage_axis(ax)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.set_title(f"{backend} {problem} ({'device' if metric == 'tflops' else 'compile'} run)", fontsize=11)
        ax.legend(fontsize=8, frameon=False, title="tile (M x N x K, threads)", title_fontsize=8)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    accel = "; ".join(f"{b}: {results.testbed(b).accelerator or 'no accelerator'}" for b in results.backends)
    fig.suptitle(f"{Path(results.path).name}  ({accel}); hollow markers = manual / T.serial loops", fontsize=9)
    return _save(fig, path)


def _common(values: Iterable[str]) -> str | None:
    found = set(values)
    return found.pop() if len(found) == 1 else None


def _short_label(item: ItemComparison, prefix: str | None, problem: str | None) -> str:
    case = item.key.case_id
    if problem and case.startswith(problem + "-"):
        case = case[len(problem) + 1:]
    label = case if prefix else f"{item.key.kind} {item.key.backend} {case}"
    return label


def plot_comparison(cmp: RunComparison, path: str | Path) -> Path:
    """One bar per item timed in both runs: the change that decided its verdict, coloured by
    verdict; hollow circles: the raw time change where a ratio to an in-run reference
    decided; grey band: under the minimum effect; dashed: the noise floor, when higher."""
    judged = [i for i in _sorted_items(cmp.items) if i.decisive is not None]
    if not judged:
        raise ValueError("no item was timed in both runs: nothing to plot")
    judged.sort(key=lambda i: i.decisive.change)
    problem = _common(i.problem for i in judged)
    prefix = _common(f"{i.key.kind} {i.key.backend}" for i in judged)
    fig = _figure(10.0, 1.9 + 0.3 * len(judged))
    ax = fig.subplots()
    ys = list(range(len(judged)))
    changes = [100 * i.decisive.change for i in judged]
    ax.barh(ys, changes, color=[VERDICT_COLOR[i.verdict] for i in judged], height=0.7)
    effect = 100 * cmp.thresholds.min_effect
    ax.axvspan(-effect, effect, color="#e0e0e0", alpha=0.6, zorder=0, label=f"under the minimum effect (±{effect:.0f} %)")
    raw = [(y, 100 * i.time.change) for y, i in zip(ys, judged) if i.decided_by != TIME and i.time]
    if raw:
        ax.plot([c for _, c in raw], [y for y, _ in raw], linestyle="none", marker="o", markerfacecolor="white",
                markeredgecolor="black", label="raw time change (an in-run ratio decided)")
    span = max([abs(c) for c in changes] + [abs(c) for _, c in raw] + [effect * 1.5]) * 1.15
    floors = sorted({100 * d.noise_floor for d in cmp.drifts if d.noise_floor > cmp.thresholds.min_effect})
    for floor in floors:
        if floor <= span:
            for sign in (-1, 1):
                ax.axvline(sign * floor, color="#555555", linestyle="--", linewidth=0.9)
    if floors:
        shown = ", ".join(f"±{f:.0f} %" for f in floors)
        off = " (beyond the axis)" if max(floors) > span else ""
        ax.plot([], [], color="#555555", linestyle="--", label=f"noise floor {shown}{off}: item-to-item spread")
    for y, item in zip(ys, judged):
        text = item.verdict.value + ("" if item.gates else " (reference, not gated)")
        ax.text(1.01, y, text, transform=ax.get_yaxis_transform(), va="center", ha="left", fontsize=8,
                color=VERDICT_COLOR[item.verdict], fontweight="bold" if item.is_regression else "normal")
    ax.set_xlim(-span, span)
    ax.set_ylim(-0.7, len(judged) - 0.3)
    ax.set_yticks(ys, [_short_label(i, prefix, problem) for i in judged], fontsize=7)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("change of the median, new vs base (%)  -  right = slower")
    ax.grid(True, axis="x", alpha=0.3)
    fig.legend(loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    counts = ", ".join(f"{n} {v.value}" for v, n in cmp.counts().items() if n)
    scope = " ".join(x for x in (prefix, problem) if x)
    ax.set_title(f"{Path(cmp.base_path).name} -> {Path(cmp.new_path).name}" + (f"   [{scope}]" if scope else "")
                 + f"\n{counts}; {'REGRESSION' if cmp.has_regression else 'no regression'}", fontsize=9)
    return _save(fig, path)
