"""The stage report as text: ``format_stage_report(report) -> list[str]`` and ``stage_markdown(report, source)``.

Contract: pure formatting of a ``StageReport``; device times print as times, model numbers as cycles marked
``(model)`` / ``(Z3)``, never in one column.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..results.report.table import format_seconds
from .stage_types import StageLine, StageReport, TOLERANCE, TileGroup

LEFT_ALIGNED = frozenset({"stages", "path", "buffers", "status"})
SHOWN_LEFT_OUT = 5


def format_stage_report(report: StageReport) -> list[str]:
    lines: list[str] = []
    for group in report.swept:
        lines += _format_group(group) + [""]
    if report.single:
        lines += _single_lines(report.single) + [""]
    if report.ignored:
        shown = "; ".join(report.ignored[:SHOWN_LEFT_OUT]) + (f"; +{len(report.ignored) - SHOWN_LEFT_OUT} more"
                                                              if len(report.ignored) > SHOWN_LEFT_OUT else "")
        lines.append(f"left out: {len(report.ignored)} kernel item(s) whose config has no num_stages axis ({shown})")
    return lines


def vendor_words(group: TileGroup) -> str:
    """How far the group's best variant is from the problem's vendor item, in words."""
    if group.basis != "device":
        return "no device time in this tile: nothing to hold against the vendor item (model cycles are not times)"
    best = group.best_point()
    if group.vendor_s is None or best is None:
        return "no vendor item of this problem was timed in this file"
    ratio = group.vendor_s / best.measured_s
    where = f"{(ratio - 1):.1%} faster than" if ratio >= 1 else f"{(1 / ratio - 1):.1%} slower than"
    name = f"num_stages={best.label}" if best.loop_form == "auto" else f"the {best.label} loop"
    return (f"the best, {name} at {format_seconds(best.measured_s)}, is {ratio:.3f}x the vendor item "
            f"({format_seconds(group.vendor_s)}): {where} the vendor")


def _single_lines(groups: Sequence[TileGroup]) -> list[str]:
    """Tiles with one depth each (a tile sweep): one line each, with the vendor ratio."""
    from ..results.report.text_table import Column, Group, TextRow, plain, render

    columns = (Column("tile"), Column("stages", right=True), Column("median", right=True), Column("x vendor", right=True))
    by: dict[str, list[TextRow]] = {}
    for g in groups:
        row = g.rows[0]
        ratio = g.vendor_ratio()
        by.setdefault(f"{g.backend} | {g.kernel} {g.problem}", []).append(TextRow(
            (g.tile, row.label, format_seconds(row.measured_s) if row.measured_s else "-", f"{ratio:.3f}x" if ratio else "-"),
            "" if row.status == "ok" else row.status))
    head = [f"{len(groups)} tile(s) measured at one num_stages only (nothing to compare within the tile; "
            "x vendor: the vendor item's time over the tile's, above 1x faster):"]
    return head + plain(render(columns, [Group(h, tuple(r)) for h, r in by.items()], 200))


def _format_group(group: TileGroup) -> list[str]:
    head = [
        f"== {group.backend} | {group.kernel} {group.problem} | tile {group.tile}"
        + (f" | {group.iterations} K steps per block ==" if group.iterations is not None else " =="),
        f"   testbed: {group.testbed}",
    ]
    head += _basis_lines(group) + _model_lines(group)
    table = _table(_columns(group), group.rows)
    verdict = group.verdict
    tail = [f"   verdict: {verdict.why}"] if verdict else []
    tail.append(f"   vs vendor: {vendor_words(group)}")
    if verdict:
        extras = []
        if verdict.min_sufficient_depth is not None:
            extras.append(f"model min sufficient depth {verdict.min_sufficient_depth}")
        if verdict.model_recommended is not None:
            extras.append(f"model's own pick (within {TOLERANCE:.0%} of its best) {verdict.model_recommended}")
        if verdict.budget_max_stages is not None:
            extras.append(f"on-chip budget allows up to {verdict.budget_max_stages} stages")
        if verdict.recommended is not None:
            tail.append(f"   recommended num_stages = {verdict.recommended}" + (f"  ({'; '.join(extras)})" if extras else ""))
        tail += [f"   - {n}" for n in verdict.notes]
    return head + ["   " + ln for ln in table] + tail


def _basis_lines(group: TileGroup) -> list[str]:
    if group.basis == "device":
        method = next((r.method for r in group.rows if r.method), "?")
        return [f"   time: device median per kernel ({method}); x vs 1 / x vs 0: speedup over num_stages 1 / 0"]
    if group.basis == "model":
        return ["   MODEL, not measured: cycles are tilelang EstimateLatency + Z3 schedule (cyc/core, K-loop II; for a "
                "non-persistent kernel cyc/core is one tile's K loop, not a per-core total); "
                "x vs 1 / x vs 0 compare modeled cyc/core"]
    return ["   no device times and no schedule model: compile-only records, nothing to judge depth by"]


def _model_lines(group: TileGroup) -> list[str]:
    if group.fit is not None:
        f = group.fit
        return [f"   model: copy -> compute timeline, {f.iterations} K steps, fitted to device "
                f"medians of num_stages>=1: latency/compute {f.latency_ratio:.2f}, compute "
                f"{format_seconds(f.compute_time)} and copy latency {format_seconds(f.latency_time)} per K step "
                f"(kernel time / K steps: all waves of blocks folded into one loop)"]
    if group.latencies is not None and group.prediction is not None:
        lat = group.latencies
        copies = ", ".join(f"{_short(n)} {lt:.0f} (holds {p} {ii:.0f})" for n, p, lt, ii in lat.copies)
        comp = ", ".join(f"{_short(n)} {lt:.0f} on {p}" for n, p, lt, _ in lat.computes)
        return [f"   model: tilelang EstimateLatency per task (cycles, model): {copies}; compute {comp}",
                f"   derived from EstimateLatency latencies (by tlbench, not tilelang): operands in place after "
                f"{lat.latency:.0f}, {lat.copy_pipe} busy {lat.issue:.0f} per K step",
                f"   timeline model with latency {lat.latency:.0f}, compute {lat.compute:.0f}, "
                f"issue {lat.issue:.0f}, {group.prediction.iterations} K steps, vs what Z3 scheduled"]
    return [f"   model: {group.model_note}"] if group.model_note else []


def _columns(group: TileGroup) -> list[tuple[str, Any]]:
    cols: list[tuple[str, Any]] = [("stages", lambda r: r.label)]
    if len({r.path for r in group.rows}) > 1:
        cols.append(("path", lambda r: r.path))
    cols.append(("buffers", lambda r: r.versions))
    if any(r.measured_s for r in group.rows):
        cols.append(("median", lambda r: format_seconds(r.measured_s) if r.measured_s else "-"))
    if group.scheduled or any(r.ii_cycles for r in group.rows):
        cols += [("II (Z3)", lambda r: _cyc(r.ii_cycles)), ("II model", lambda r: _cyc(r.predicted_ii)),
                 ("K loop (Z3)", lambda r: _cyc(r.loop_cycles)), ("K loop model", lambda r: _cyc(r.predicted)),
                 ("err", lambda r: _pct(r.relative_error)), ("cyc/core (Z3)", lambda r: _cyc(r.modeled_cycles))]
    elif group.fit is not None:
        cols += [("model", lambda r: format_seconds(r.predicted) if r.predicted else "-"),
                 ("err", lambda r: _pct(r.relative_error))]
    if group.basis != "none":
        suffix = "" if group.basis == "device" else " (model)"
        cols += [("x vs 1" + suffix, lambda r: _x(r.speedup_vs_1)), ("x vs 0" + suffix, lambda r: _x(r.speedup_vs_0))]
    scope = next((r.onchip_scope for r in group.rows if r.onchip_scope), "on-chip")
    cols.append((f"{scope} used/limit", _onchip_cell))
    if any(r.status != "ok" for r in group.rows):
        cols.append(("status", lambda r: r.status))
    return cols


def _table(columns: Sequence[tuple[str, Any]], rows: Iterable[StageLine]) -> list[str]:
    cells = [[h for h, _ in columns]] + [[str(fn(r)) for _, fn in columns] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(columns))]
    lefts = [h in LEFT_ALIGNED for h, _ in columns]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if left else c.rjust(w) for c, w, left in zip(row, widths, lefts)).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths)] + [line(c) for c in cells[1:]]


def _onchip_cell(row: StageLine) -> str:
    if row.onchip_bytes is None or not row.onchip_limit:
        return "-" if row.onchip_bytes is None else f"{row.onchip_bytes / 1024:.0f} KiB"
    return f"{row.onchip_bytes / 1024:.0f}/{row.onchip_limit / 1024:.0f} KiB {row.onchip_bytes / row.onchip_limit:4.0%}"


def _short(kind: str) -> str:
    """``copy A->A_tile (global->shared.l1)`` -> ``copy A``; anything else as is."""
    return "copy " + kind[5:].split("->")[0].strip() if kind.startswith("copy ") and "->" in kind else kind


def _cyc(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}" if float(value).is_integer() or value > 100 else f"{value:.1f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1g}%" if 0 < abs(value) < 0.001 else f"{value:+.1%}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"x{value:.2f}"


def _md_text(value: object) -> str:
    """A table cell: HTML as entities (a case id is data, never markup), no pipe or newline."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "/").replace("\n", " ")


def stage_markdown(report: StageReport, source: str) -> str:
    """The text report as GitHub markdown: a heading, each group's recommendation as a table row, then the full
    report in a fenced block (its aligned columns survive)."""
    rows = []
    for g in report.groups:
        v = g.verdict
        cells = [g.backend, f"{g.kernel} {g.problem}", g.tile, g.basis,
                 v.recommended if v and v.recommended is not None else "-", (v.why if v else "").replace("|", "/")]
        rows.append("| " + " | ".join(_md_text(c) for c in cells) + " |")
    head = [f"### tlbench stage report: {source}", "",
            "| backend | problem | tile | basis | recommended num_stages | why |", "|---|---|---|---|---|---|", *rows, ""]
    return "\n".join([*head, "```", *format_stage_report(report), "```"]) + "\n"
