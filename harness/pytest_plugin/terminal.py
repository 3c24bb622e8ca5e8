"""What the terminal ends with after a tlbench run.

Contract: ``write_summary(reporter, records, setup_s, traits_of, extra_lines)`` writes the ``tlbench``
section: at ``-v`` (verbosity > 0) first the full per-item table, then always the summary
blocks of ``harness.results.summary`` (one per backend x problem, skips folded by reason,
setup, and where a setup took over 5 s where it went: ``setup_parts``), then ``extra_lines`` (journal, diagnostics, autotune).  The plugin registers its
terminal hook ``trylast`` so this comes after pytest-benchmark's own tables.
"""

from __future__ import annotations

from typing import Any, Iterable

from tlbench.harness.results.summary import summary_lines
from tlbench.harness.results.table import format_table, rows_from_records


def write_summary(
    reporter, records: list[dict[str, Any]], setup_s: dict[str, float], traits_of, extra_lines: Iterable[str] = (), title: str = "tlbench",
    setup_parts: dict[str, dict] | None = None,
) -> None:
    if reporter.config.getoption("verbose", 0) > 0:
        reporter.write_sep("=", f"{title}: every item")
        ordered = sorted(records, key=lambda r: (str(r.get("kind")), str(r.get("backend")), str(r.get("case_id"))))
        for line in format_table(rows_from_records(ordered, traits_of)):
            reporter.write_line(line)
    reporter.write_sep("=", f"{title} summary (every item: pytest -v, or tlbench report FILE)")
    for line in summary_lines(records, setup_s, setup_parts):
        reporter.write_line(line)
    for line in extra_lines:
        reporter.write_line(line)
