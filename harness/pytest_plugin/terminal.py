"""What the terminal ends with after a tlbench run.

Contract: ``write_summary(reporter, records, setup_s, traits_of, extra_lines)`` writes the ``tlbench``
section: at ``-v`` (verbosity > 0) first the full per-item table (harness/results/report/table.py, laid out for the terminal's width), then always the summary
blocks of ``harness.results.report.summary`` (one per backend x problem, skips folded by reason,
setup, and where a setup took over 5 s where it went: ``setup_parts``), then ``extra_lines`` (journal, diagnostics, autotune).  The plugin registers its
terminal hook ``trylast`` so this comes after pytest-benchmark's own tables.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..results.files.run_facts import facts_of
from ..results.report.summary import summary_lines
from ..results.report.table import run_table_text


def write_summary(
    reporter, records: list[dict[str, Any]], setup_s: dict[str, float], traits_of, extra_lines: Iterable[str] = (), title: str = "tlbench",
    setup_parts: dict[str, dict] | None = None,
) -> None:
    if reporter.config.getoption("verbose", 0) > 0:
        reporter.write_sep("=", f"{title}: every item")
        for line in run_table_text(facts_of(records, traits_of), getattr(getattr(reporter, "_tw", None), "fullwidth", 200)):
            reporter.write_line(line)
    reporter.write_sep("=", f"{title} summary (every item: pytest -v, or tlbench report FILE)")
    for line in summary_lines(records, setup_s, setup_parts):
        reporter.write_line(line)
    for line in extra_lines:
        reporter.write_line(line)
