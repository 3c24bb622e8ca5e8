"""Render comparisons and single runs: one module per output format, gathered here.

Contract: ``print_*(data, console, width)``, ``*_markdown(data) -> str`` and ``plot_*(data, path)
-> Path`` only format a ``RunComparison``, ``AcrossBackends`` or ``Results`` in report_cells'
words.  Device time and modeled cycles never share a number or an axis.
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
