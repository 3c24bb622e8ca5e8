"""The replay's table: one line per problem, grouped by results file and device.

Contract: ``replay_lines(rows, width)`` lays out ``ReplayRow``s; ``summary_lines(rows,
max_fraction)`` says how many met the goal and the stopping rule; ``row_json(row)`` is one row as
plain data.  Pure layout, no I/O.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Sequence

from ..results.report.text_table import Column, Group, TextRow, plain, render
from .replay import ReplayRow

COLUMNS = (
    Column("problem"), Column("configs", True), Column("measured", True), Column("fraction", True),
    Column("best found ms", True), Column("exhaustive best ms", True), Column("ratio", True),
    Column("within", True), Column("tau first", True), Column("tau final", True), Column("device s search/all", True),
)


def _tau(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def _within(row: ReplayRow) -> str:
    if row.ratio is None:
        return "MISS (nothing timed)"
    return "yes" if row.within else f"MISS +{(row.ratio - 1) * 100:.1f} %"


def _cost(row: ReplayRow) -> str:
    if row.search_device_s is None or row.exhaustive_device_s is None:
        return "-"
    return f"{row.search_device_s:.2f}/{row.exhaustive_device_s:.2f}"


def replay_lines(rows: Sequence[ReplayRow], width: int) -> list[str]:
    groups: dict[str, list[TextRow]] = {}
    for row in rows:
        heading = f"{row.sweep.source} | {row.sweep.backend} {row.sweep.device or '?'}"
        found = "-" if row.best_found_s is None else f"{row.best_found_s * 1e3:.4f}"
        groups.setdefault(heading, []).append(TextRow(
            cells=(row.sweep.name, str(row.configs), str(row.measured), f"{row.fraction:.2f}", found,
                   f"{row.exhaustive_best_s * 1e3:.4f}", "-" if row.ratio is None else f"{row.ratio:.4f}",
                   _within(row), _tau(row.tau_prior), _tau(row.tau_final), _cost(row)),
            note=row.result.stopped_because,
        ))
    return plain(render(COLUMNS, [Group(h, tuple(r)) for h, r in groups.items()], width, "stopped"))


def meets_goal(row: ReplayRow, max_fraction: float) -> bool:
    return row.within and row.fraction <= max_fraction


def summary_lines(rows: Sequence[ReplayRow], max_fraction: float) -> list[str]:
    met = sum(meets_goal(r, max_fraction) for r in rows)
    tolerance = rows[0].tolerance if rows else 0.0
    lines = [f"goal (within {tolerance:.0%} of the exhaustive best, at most {max_fraction:.0%} measured): "
             f"{met} of {len(rows)} problems"]
    if rows:
        lines.append(f"stopping rule: {rows[0].result.rule}")
    costs = [(r.search_device_s, r.exhaustive_device_s) for r in rows
             if r.search_device_s is not None and r.exhaustive_device_s is not None]
    if costs:
        spent, whole = sum(c[0] for c in costs), sum(c[1] for c in costs)
        lines.append(f"device time (warm-up + sampling in the recorded runs): the search {spent:.1f} s, the exhaustive "
                     f"sweeps {whole:.1f} s ({spent / whole:.0%}); compiling every config (the plan) is not counted in either")
    lines.append("tau first: Kendall tau of the ranking before any measurement of the problem (plan, budget, timeline "
                 "model, and the other problems of --learn-from runs where given) against the recorded times; tau final: "
                 "of the prediction after the search's measurements")
    return lines


def row_json(row: ReplayRow) -> dict[str, object]:
    return {"source": row.sweep.source, "backend": row.sweep.backend, "device": row.sweep.device,
            "problem": row.sweep.name, "configs": row.configs, "measured": row.measured, "fraction": row.fraction,
            "best_found_s": row.best_found_s, "best_found": row.best_found_id,
            "exhaustive_best_s": row.exhaustive_best_s, "exhaustive_best": row.exhaustive_best_id,
            "ratio": row.ratio, "within": row.within, "tau_first": row.tau_prior, "tau_final": row.tau_final,
            "search_device_s": row.search_device_s, "exhaustive_device_s": row.exhaustive_device_s,
            "stopped_because": row.result.stopped_because, "rule": row.result.rule,
            "measured_configs": [asdict(m) for m in row.result.measured],
            "skipped_configs": [asdict(s) for s in row.result.skipped]}
