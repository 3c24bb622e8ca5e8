"""Comparisons and runs as GitHub markdown (CI step summaries, PR comments).

Contract: ``comparison_markdown(cmp)``, ``across_markdown(ab)``, ``run_markdown(results)`` return
markdown; ``md_table(header, rows)`` escapes cells (``md_cell``, ``escape_html``).  Rows of a
folded verdict (SAME) go in a collapsed section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence
from ..compare.compare_backends import AcrossBackends
from ..compare.comparison import RunComparison
from ..compare import verdict_words
from .partial_note import partial_lines
from ..files.store import Results
from .report_cells import (
    COMPARISON_HEADER, PLAN_HEADER, RUN_HEADER, across_rows, best_lines, comparison_rows, facts, metric_lines, plan_line, plan_rows,
    run_cells, run_summary, sorted_items, summary_line, testbed_lines,
)


def escape_html(text: object) -> str:
    """Data as markdown text: ``<``, ``>`` and ``&`` as entities, so a case id or an error text
    holding ``<script>`` or ``<img onerror=...>`` shows as text and never becomes HTML."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;")  # no tag can open without "<"


def md_cell(text: object) -> str:
    """Data as one markdown table cell: escaped (``escape_html``), its pipes and line breaks neutral."""
    return escape_html(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def comparison_markdown(cmp: RunComparison, title: str | None = None) -> str:
    head = title or f"tlbench compare: `{Path(cmp.base_path).name}` -> `{Path(cmp.new_path).name}`"
    mark = ":x:" if cmp.has_regression else ":white_check_mark:"
    out = [f"### {head}", "", f"{mark} **{summary_line(cmp)}**", ""]
    out += [f"- {escape_html(line)}" for line in testbed_lines(cmp)]
    out.append("")
    rows = comparison_rows(cmp)
    items = sorted_items(cmp.items)
    shown = [r for r, i in zip(rows, items) if not verdict_words.folded(i.verdict)]
    folded = [(r, i.verdict.value) for r, i in zip(rows, items) if verdict_words.folded(i.verdict)]
    if shown:
        out += [md_table(COMPARISON_HEADER, shown), ""]
    if folded:
        summary = ", ".join(f"{sum(w == v for _, w in folded)} {v}" for v in dict.fromkeys(w for _, w in folded))
        out += [f"<details><summary>{summary}</summary>", "", md_table(COMPARISON_HEADER, [r for r, _ in folded]), "",
                "</details>", ""]
    if cmp.plans:
        plans = plan_rows(cmp)
        out += ["**Compiler plans and schedule model** (compiler decisions and model cycles, never times)", ""]
        out += [md_table(PLAN_HEADER, plans), ""] if plans else []
        out += [plan_line(cmp), ""]
    out.append(
        "Change is `new / base - 1` of the median (+ is slower). *Relative change*: each kernel's samples divided by "
        "a reference measured in its own run - the vendor item of its problem (*ratio to vendor*), else the geometric "
        "mean of the run's other kernels (*ratio to run*) - which cancels clock and load drift between processes; "
        "when it exists, it decides. A verdict needs Mann-Whitney U p < alpha AND a change of at least the minimum "
        "effect AND, with 6+ kernels, at least 4 robust SDs of the item-to-item spread. *[instructions]* rows judge a "
        "compile item's instruction count (the work its cold lowering did, which load cannot move): SLOWER/FASTER at "
        "1 % or more, beyond the pair's resolution."
    )
    return "\n".join(out) + "\n"


def across_markdown(ab: AcrossBackends) -> str:
    header, rows = across_rows(ab)
    out = ["### tlbench: stage speedup across backends", ""]
    out += [f"- {escape_html(line)}" for line in metric_lines(ab)]
    out += ["", md_table(header, rows), ""]
    out += [f"- **{escape_html(line)}**" for line in best_lines(ab)]
    out += ["", "Speedup = the backend's own 1-stage (or serial) value / this config's value, in that backend's metric."]
    return "\n".join(out) + "\n"


def run_markdown(results: Results) -> str:
    out = [f"### tlbench report: `{Path(results.path).name}`", ""]
    out += [f"- testbed {escape_html(results.testbed(b).describe())}" for b in results.backends]
    out += [f"- {escape_html(run_summary(results))}"] + [f"- {escape_html(n)}" for n in partial_lines(results)]
    out += ["", md_table(RUN_HEADER, [run_cells(f) for f in facts(results)])]
    return "\n".join(out) + "\n"
