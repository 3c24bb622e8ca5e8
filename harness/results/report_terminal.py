"""Comparisons and runs as rich tables on a terminal.

Contract: ``print_comparison(cmp, console)``, ``print_across(ab, console)``, ``print_run(results,
console)`` write to a ``rich.console.Console``; the cells are report_cells', the verdicts'
styles verdict_words.py's.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence
from tlbench.harness.results.compare_backends import AcrossBackends
from tlbench.harness.results.comparison import RunComparison
from tlbench.harness.results import verdict_words
from tlbench.harness.results.store import Results
from tlbench.harness.results.report_cells import COMPARISON_HEADER, PLAN_HEADER, RUN_HEADER, plan_line, plan_rows, across_rows, best_lines, comparison_rows, metric_lines, row_cells, run_rows, run_summary, sorted_items, summary_line, testbed_lines


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
    for line in testbed_lines(cmp):
        console.print(line, style="red" if "MISMATCH" in line or "WHOLE-RUN" in line else None, highlight=False, markup=False)
    items = sorted_items(cmp.items)
    styles = [verdict_words.style(i.verdict) for i in items]
    console.print(_rich_table("per item (+ is slower)", COMPARISON_HEADER, comparison_rows(cmp), styles, keep=2))
    if cmp.plans:
        rows = plan_rows(cmp)
        if rows:
            console.print(_rich_table("compiler plans and schedule model (decisions and model cycles, not times)", PLAN_HEADER,
                                      rows, ["bold red" if r[0] == "MODEL WORSE" else "yellow" for r in rows], keep=2))
        console.print(plan_line(cmp), highlight=False, markup=False)
    style = "bold red" if cmp.has_regression else "bold green"
    console.print(summary_line(cmp), style=style, highlight=False, markup=False)


def print_across(ab: AcrossBackends, console: Any) -> None:
    console.print("[bold]tlbench compare --across-backends[/]: speedup of each config over its own 1-stage (or serial) point")
    for line in metric_lines(ab):
        console.print(line, highlight=False, markup=False)
    header, rows = across_rows(ab)
    console.print(_rich_table("stage table (each backend's own metric; speedups are ratios within one backend)", header, rows, keep=3))
    for line in best_lines(ab):
        console.print(line, style="bold", highlight=False, markup=False)


def print_run(results: Results, console: Any) -> None:
    console.print(f"tlbench report {results.path}", style="bold", markup=False)
    for backend in results.backends:
        console.print(f"testbed {results.testbed(backend).describe()}", highlight=False, markup=False)
    rows = run_rows(results)
    styles = ["red" if r.status.startswith("FAILED") else ("dim" if r.status.startswith("skipped") else "") for r in rows]
    console.print(_rich_table("items", RUN_HEADER, [row_cells(r) for r in rows], styles, keep=3))
    console.print(run_summary(results), highlight=False, markup=False)


# -- markdown -------------------------------------------------------------------------------
