"""Render comparisons and single runs: one module per output format, gathered here.

Contract: every function takes the data of ``harness.results.compare.compare`` /
``compare_backends`` (``RunComparison``, ``AcrossBackends``) or a
``harness.results.files.store.Results`` and only formats it.
- ``print_*(data, console, width)``: the one table renderer's lines on a ``rich.console.Console``
  (report_terminal, text_table).
- ``*_markdown(data) -> str``: GitHub markdown for CI step summaries and PR comments
  (report_markdown).
- ``plot_*(data, path) -> Path``: a PNG (report_png).
The words and cells all three print are report_cells'.  Times are printed as times, modeled
numbers as ``cyc (model)``; device time and modeled cycles never share a number or an axis.
"""

from __future__ import annotations

from .report_cells import comparison_rows, format_change, format_value, history_reference_lines, summary_line
from .report_markdown import across_markdown, comparison_markdown, md_table, run_markdown
from .report_png import plot_across, plot_comparison, plot_run
from .report_terminal import print_across, print_comparison, print_run

__all__ = [
    "across_markdown", "comparison_markdown", "comparison_rows", "format_change", "format_value", "history_reference_lines", "md_table",
    "plot_across", "plot_comparison", "plot_run", "print_across", "print_comparison", "print_run", "run_markdown",
    "summary_line",
]
