"""The ``history show`` table: one row per case and testbed, its last runs side by side.

Contract: ``trend_rows(series_list, last, min_effect)`` returns a header and rows of
strings: suite, case, testbed id, kind, number of runs, the medians of the last ``last`` runs
(oldest left; a failed run reads FAILED), the best median, the last run against the best,
% of peak of the last run (when the record has it), and the latest level change found by
step detection ("+8.2% at run 12").  ``trend_lines`` adds the testbed legend and the run
legend (run id, date, commit) under the table.  Pure formatting; no I/O.
"""

from __future__ import annotations

from typing import Sequence

from tlbench.harness.results.history.query import Series
from tlbench.harness.results.history.steps import detect_steps
from tlbench.harness.results.table import format_seconds


def _cell(point) -> str:
    if point is None:
        return ""
    if point.status == "failed":
        return "FAILED"
    if point.status == "skipped":
        return "skip"
    return format_seconds(point.median_s)


def trend_rows(all_series: Sequence[Series], last: int = 6, min_effect: float = 0.05) -> tuple[list[str], list[list[str]]]:
    run_ids = sorted({p.run_id for s in all_series for p in s.points}, key=lambda r: _run_order(all_series, r))[-last:]
    header = ["suite", "case", "tb", "kind", "runs", *[f"run {r}" for r in run_ids], "best", "last/best", "% peak", "last step"]
    rows = []
    for s in all_series:
        by_run = {p.run_id: p for p in s.points}
        timed = s.timed
        best = min((p.median_s for p in timed), default=None)
        last_timed = timed[-1] if timed else None
        versus = f"{last_timed.median_s / best - 1:+.1%}" if last_timed and best else ""
        peak = f"{last_timed.pct_of_peak:.1f}%" if last_timed and last_timed.pct_of_peak is not None else ""
        steps = detect_steps([p.median_s for p in timed], min_effect) if timed else []
        step = f"{steps[-1].change:+.1%} at run {timed[steps[-1].index].run_id}" if steps else ""
        rows.append([s.suite, s.case_id, str(s.testbed.testbed_id), s.kind, str(len(s.points)),
                     *[_cell(by_run.get(r)) for r in run_ids], format_seconds(best) if best else "", versus, peak, step])
    return header, rows


def _run_order(all_series: Sequence[Series], run_id: int) -> tuple:
    for s in all_series:
        for p in s.points:
            if p.run_id == run_id:
                return (p.started_at or "", run_id)
    return ("", run_id)


def trend_legend(all_series: Sequence[Series], last: int = 6) -> list[str]:
    beds = {s.testbed.testbed_id: s.testbed for s in all_series}
    points = {p.run_id: p for s in all_series for p in s.points}
    shown = sorted(points, key=lambda r: _run_order(all_series, r))[-last:]
    lines = [f"testbed {i}: {bed.describe()}" for i, bed in sorted(beds.items())]
    lines += [points[r].label for r in shown]
    return lines
