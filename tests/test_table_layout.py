"""The one table renderer (harness/results/report/text_table.py) and what report, compare and history
show print through it: a case id split into its problem (the group heading) and its config (the
row), a row is at most two lines at any width, the gate line first, on real committed files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tlbench.harness.results.report.text_table import Column, Group, TextRow, plain, render, split_id

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "results" / "h200-parity" / "gemm-ws.json.gz"
RERUN = ROOT / "results" / "h200-parity" / "gemm-ws-rerun.json.gz"


def _piped(*argv: str, columns: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = columns
    return subprocess.run([sys.executable, "-m", "tlbench.harness.cli", *argv], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env=env)


def test_split_id_cuts_the_problem_off_and_keeps_an_unknown_id_whole():
    assert split_id("gemm-8192x8192x8192-f16-bm128-auto-s3", "gemm-8192x8192x8192-f16") == ("gemm-8192x8192x8192-f16", "bm128-auto-s3")
    assert split_id("other-id", "gemm-1") == ("gemm-1", "other-id")
    assert split_id("gemm-1", "gemm-1") == ("gemm-1", "-")


def test_a_note_joins_its_row_when_it_fits_and_takes_one_more_line_when_not():
    columns = [Column("config"), Column("median", right=True)]
    rows = (TextRow(("s1", "1.0 ms"), "short"), TextRow(("s2", "2.0 ms"), "x" * 300))
    for width in (40, 80, 200, 1000):
        lines = plain(render(columns, [Group("gemm", rows)], width))
        body = lines[3:]  # header, rule, heading
        assert body[0].endswith("short") and body[0].startswith("  s1")
        if width >= 320:
            assert len(body) == 2 and body[1].endswith("x" * 300)
        else:
            assert len(body) == 3 and body[2].strip() == "x" * 300  # never folded, never a third line


def test_piped_compare_of_200_items_reads_in_two_lines_per_item_gate_line_first():
    done = _piped("compare", str(BASE), str(RERUN))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    items = 166
    assert len(lines) <= 2 * items + 40, len(lines)
    gate = "no regression; 3 NOISY, 163 SAME;"  # counts in the verdict table's order, worst first
    assert lines[1].startswith(gate) and lines[-1].startswith(gate)  # summary first, and last for a log's tail
    rows = [line for line in lines if line.startswith(("  SAME ", "  NOISY "))]
    assert len(rows) == items
    assert all(len(line) <= 200 for line in rows)  # the numbers are never squeezed behind the id
    headings = [line for line in lines if line.startswith(("SAME | ", "NOISY | "))]
    assert "NOISY | device nvidia | gemm_ws-M8192-N8192-K8192-f16 [gemm_ws] (3)" in headings


def test_piped_report_is_one_row_per_item_plus_its_status():
    done = _piped("report", str(BASE))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= 2 * 180 + 40  # 166 timed + 14 skipped
    header = next(line for line in lines if line.lstrip().startswith("config "))
    for column in ("stages", "median", "rate", "of peak/BW", "x vendor", "plan"):
        assert column in header


def test_a_wide_terminal_gets_one_line_per_item():
    done = _piped("compare", str(BASE), str(RERUN), columns="500")
    rows = [line for line in done.stdout.splitlines() if line.startswith(("  SAME ", "  NOISY "))]
    notes = [line for line in done.stdout.splitlines() if line.startswith("      ")]
    assert len(rows) == 166 and not notes
