"""The run table: one run's items as ``tlbench report`` and ``pytest -v`` print them.

Contract (pure formatting of ``run_facts.ItemFacts``): ``format_seconds``; ``run_table(facts,
width)``: a text_table.py group per (kind, backend, problem, suite), rows the vendor item, timed
kernels by config, failed, skipped, the status as a row's note; ``run_table_text``: plain lines.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..files.run_facts import ItemFacts
from .text_table import Column, Group, Line, TextRow, natural_key, plain, render

COLUMNS = (Column("config"), Column("stages", right=True), Column("median", right=True), Column("rate", right=True),
           Column("of peak/BW", right=True), Column("x vendor", right=True), Column("plan"))
STATUS_ORDER = {"timed": 0, "failed": 1, "skipped": 2}


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.3f} s"
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.2f} us"


def rate_cells(f: ItemFacts) -> tuple[str, str]:
    """(rate, share of the roof) on the kernel's own basis: bytes for a memory-bound kernel."""
    if f.bound == "memory" and f.gbps:
        share = f"{f.pct_of_bandwidth:.1f}% BW" if f.pct_of_bandwidth is not None else "BW unknown"
        return f"{f.gbps:,.0f} GB/s", share
    if f.tflops:
        if f.pct_of_peak is not None:
            share = f"{f.pct_of_peak:.1f}%"
        else:
            share = "peak unknown" if f.peak_known is False else "-"
        return f"{f.tflops:.1f} TFLOP/s", share
    return "-", "-"


def _plan(f: ItemFacts) -> str:
    return f.plan_summary or "-"


def _row(f: ItemFacts) -> TextRow:
    rate, share = rate_cells(f)
    style = "red" if f.status == "failed" else ("dim" if f.status == "skipped" else ("yellow" if f.flag else None))
    return TextRow(
        (f.config_id + (" (vendor)" if f.vendor and f.config_id != "vendor" else ""),
         "-" if f.num_stages is None else str(f.num_stages), format_seconds(f.median_s), rate, share,
         f"{f.vendor_ratio:.3f}x" if f.vendor_ratio else "-", _plan(f)),
        f.words, style)


def groups_of(facts: Iterable[ItemFacts]) -> list[Group]:
    by: dict[tuple[str, str, str, str], list[ItemFacts]] = {}
    for f in facts:
        by.setdefault((f.kind, f.backend, f.problem_id, f.suite), []).append(f)
    out = []
    for (kind, backend, problem, suite), items in sorted(by.items()):
        items.sort(key=lambda f: (STATUS_ORDER.get(f.status, 3), not f.vendor, natural_key(f.config_id)))
        out.append(Group(f"{kind} {backend} | {problem or '(no problem id)'} [{suite}] ({len(items)} items)",
                         tuple(_row(f) for f in items)))
    return out


def run_table(facts: Sequence[ItemFacts], width: int) -> list[Line]:
    if not facts:
        return [("(no tlbench items)", None)]
    return render(COLUMNS, groups_of(facts), width, note_header="status")


def run_table_text(facts: Sequence[ItemFacts], width: int) -> list[str]:
    return plain(run_table(facts, width))
