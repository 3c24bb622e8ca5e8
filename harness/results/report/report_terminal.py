"""Comparisons and runs on a terminal or in a log, through the one table renderer.

Contract: ``print_comparison(cmp, console, width, notes)``, ``print_across(ab, console, width)``,
``print_run(results, console, width)`` write to a ``rich`` Console with text_table.py's layout;
a comparison prints its gate line first and again last (what a log tail shows).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..compare.compare_backends import AcrossBackends
from ..compare.comparison import RunComparison
from .report_cells import (
    COMPARE_COLUMNS, PLAN_COLUMNS, across_rows, best_lines, comparison_groups, facts, metric_lines, plan_groups, plan_line,
    run_summary, summary_line, testbed_lines,
)
from .partial_note import partial_lines
from ..files.store import Results
from .table import run_table
from .text_table import Column, Group, Line, TextRow, render
from .search_account import search_accounts


def _out(console: Any, lines: Sequence[Line]) -> None:
    for text, style in lines:
        console.print(text, style=style, highlight=False, markup=False, soft_wrap=True)


def print_comparison(cmp: RunComparison, console: Any, width: int, notes: Sequence[str] = ()) -> None:
    gate_style = "bold red" if cmp.has_regression else "bold green"
    lines: list[Line] = [(f"tlbench compare  base {cmp.base_path}  new {cmp.new_path}", "bold"), (summary_line(cmp), gate_style)]
    lines += [(n, "yellow") for n in notes]
    lines += [(t, "red" if "MISMATCH" in t or "WHOLE-RUN" in t else None) for t in testbed_lines(cmp)]
    lines += [("", None), ("per item (+ is slower; the note: what decided, and why)", "bold")]
    lines += render(COMPARE_COLUMNS, comparison_groups(cmp), width, note_header="")
    if cmp.plans:
        plans = plan_groups(cmp)
        if plans:
            lines += [("", None), ("compiler plans and schedule model (decisions and model cycles, not times)", "bold")]
            lines += render(PLAN_COLUMNS, plans, width)
        lines.append((plan_line(cmp), None))
    lines.append((summary_line(cmp), gate_style))
    _out(console, lines)


def print_across(ab: AcrossBackends, console: Any, width: int) -> None:
    lines: list[Line] = [("tlbench compare --across-backends: each backend's configs against its own 1-stage (or serial) point", "bold")]
    lines += [(t, None) for t in metric_lines(ab)]
    header, rows = across_rows(ab)
    columns = [Column(h, right=i >= 3) for i, h in enumerate(header[1:])]
    groups: dict[str, list[TextRow]] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(TextRow(tuple(row[1:])))
    lines += render(columns, [Group(f"problem {p}", tuple(r)) for p, r in groups.items()], width)
    lines += [(t, "bold") for t in best_lines(ab)]
    _out(console, lines)


def print_run(results: Results, console: Any, width: int) -> None:
    lines: list[Line] = [(f"tlbench report {results.path}", "bold")]
    lines += [(run_summary(results), "bold")]
    lines += [(n, "yellow") for n in partial_lines(results)]
    lines += [(f"testbed {results.testbed(b).describe()}", None) for b in results.backends]
    lines += run_table(facts(results), width)
    lines += [(a.words(), None) for a in search_accounts([*results.records, *results.failed, *results.skipped])]
    lines.append((run_summary(results), None))
    _out(console, lines)
