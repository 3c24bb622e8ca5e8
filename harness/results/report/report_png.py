"""Comparisons and runs as PNG plots.

Contract: ``plot_comparison(cmp, path)``, ``plot_across(ab, path)``, ``plot_run(results, path)``
write a PNG and return its path (matplotlib imported lazily, Agg canvas, no pyplot).  A
speedup is one backend's own ratio; device time and modeled cycles never share an axis.
"""

from __future__ import annotations

from dataclasses import replace

from ...core.family import FamilyCatalog, StagePoint
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable
from ...core.backend_traits import TraitsCatalog
from ..compare.compare_backends import AcrossBackends
from ..compare.comparison import ItemComparison, RunComparison
from ..compare import verdict_words
from ..compare.judgement import TIME
from ..compare.pairing import problem_of
from ..files.record_fields import Record
from ..files.store import Results
from .report_cells import sorted_items


TILE_STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D")]
STAGE_SLOTS = ["auto-s0", "auto-s1", "auto-s2", "auto-s3", "auto-s4"]
EXTRA_SLOTS = ["manual", "serial"]


# -- small formatters -----------------------------------------------------------------------


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
    return 5.5 + EXTRA_SLOTS.index(point_loop) if point_loop in EXTRA_SLOTS else None


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
    """Each backend's speedup over its own 1-stage point; backends with no speedup (compile times,
    the CPU cost of a build) are named in the title and not drawn.  ``ValueError`` when no
    backend has one (nothing to plot)."""
    traits_of = traits_of or TraitsCatalog.from_entry_points().get
    drawn = [s for s in ab.backends if any(p.speedup for p in s.points)]
    if not drawn:
        raise ValueError("--png: no backend in these files has a kernel metric to plot (device time or modeled cycles); "
                         "compile times are shown in the table only")
    ab = replace(ab, backends=tuple(drawn), notes=ab.notes + tuple(
        f"{s.backend}: {s.metric.name} only, not drawn" for s in ab.backends if s not in drawn))
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
    left = "".join(f"\n{n}" for n in ab.notes if n.endswith("not drawn"))
    fig.suptitle(f"{measured}{left}\nstar = each backend's best config; hollow markers = manual / T.serial loops", fontsize=9)
    return _save(fig, path)


def _run_panels(results: Results) -> list[tuple[str, str, str, list[Record], str]]:
    """(backend, problem, metric, records, y label): device TFLOP/s, compile seconds, modeled cycles."""
    grouped: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
    for rec in results.timed:
        grouped[(rec.backend, problem_of(rec), rec.kind)].append(rec)
    panels = []
    for (backend, problem, kind), recs in sorted(grouped.items()):
        if kind == "device":
            panels.append((backend, problem, "tflops", recs, "TFLOP/s (device time, higher is better)"))
        else:
            panels.append((backend, problem, "compile", recs, "cold compile time, s (lower is better)"))
            if any(((r.plan or {}).get("schedule_model") or {}).get("modeled_cycles_per_core") for r in recs):
                panels.append((backend, problem, "model", recs, "modeled cycles/core (MODEL, lower is better)"))
    return panels


def _panel_value(rec: Record, metric: str) -> float | None:
    if metric == "tflops":
        return rec.throughput.get("tflops")
    if metric == "model":
        return ((rec.plan or {}).get("schedule_model") or {}).get("modeled_cycles_per_core")
    return rec.summary.get("median")


def _stages(records: list[Record], catalog: FamilyCatalog) -> dict[int, StagePoint]:
    """Each kernel record's place on the pipeline-depth axis, from its family (by ``id()``)."""
    out = {}
    for rec in records:
        family = catalog.for_record(rec.raw)
        out[id(rec)] = family.stage_point(family.config_from_dict(rec.config))
    return out


def plot_run(results: Results, path: str | Path) -> Path:
    panels = _run_panels(results)
    if not panels:
        raise ValueError(f"{results.path}: no timed items to plot")
    columns = min(2, len(panels))
    rows = (len(panels) + columns - 1) // columns
    fig = _figure(7.0 * columns, 4.4 * rows + 0.5)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    catalog = FamilyCatalog.from_entry_points()
    for ax, (backend, problem, metric, recs, ylabel) in zip(axes, panels):
        kernels = [r for r in recs if r.config]
        stage = _stages(kernels, catalog)
        for index, tile in enumerate(sorted({stage[id(r)].tile for r in kernels})):
            series = [(_slot(stage[id(r)].loop_id), _panel_value(r, metric)) for r in kernels if stage[id(r)].tile == tile]
            series = [(x, y) for x, y in series if x is not None and y]
            _draw_tile_series(ax, series, f"C{index}", TILE_STYLES[index % len(TILE_STYLES)], tile)
        for vendor in (r for r in recs if r.kernel == "vendor"):
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
    judged = [i for i in sorted_items(cmp.items) if i.decisive is not None]
    if not judged:
        raise ValueError("no item was timed in both runs: nothing to plot")
    judged.sort(key=lambda i: i.decisive.change)
    problem = _common(i.problem for i in judged)
    prefix = _common(f"{i.key.kind} {i.key.backend}" for i in judged)
    fig = _figure(10.0, 1.9 + 0.3 * len(judged))
    ax = fig.subplots()
    ys = list(range(len(judged)))
    changes = [100 * i.decisive.change for i in judged]
    ax.barh(ys, changes, color=[verdict_words.colour(i.verdict) for i in judged], height=0.7)
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
                color=verdict_words.colour(item.verdict), fontweight="bold" if item.is_regression else "normal")
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
