"""``tlbench history add|import-dir|show``: the SQLite history of runs.

Contract: ``run_history(args)`` returns 0, or 2 for unusable input.  ``add`` / ``import-dir`` print
one line per file; ``add`` exits 2 when a named file could not be used (after storing the usable
ones) and stores a partial run only with ``--allow-partial``.
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import (EXIT_OK, EXIT_UNUSABLE, add_allow_partial, add_history, add_json, console, exit_codes,
    parser_args, positive, print_json, skipped_lines, width)

from ..results.history.schema import DEFAULT_HISTORY, HistoryError, open_history
from ..results.history import ingest, query
from ..results.history.trend import case_trends, trend_legend, trend_table

def register(sub: Any) -> None:
    hist = sub.add_parser("history", **parser_args(
        "the SQLite history of runs: add, import-dir, show", f"The history database (default {DEFAULT_HISTORY}).",
        exit_codes("done")))
    hist_sub = hist.add_subparsers(dest="history_command", required=True, metavar="{add,import-dir,show}")
    add = hist_sub.add_parser("add", **parser_args(
        "add results files (idempotent: a file already stored is skipped)", "Store runs in the history.",
        exit_codes("every file stored or already there",
                   unusable="a file named could not be used, or is a partial run without --allow-partial (every usable one is stored)")))
    add.add_argument("files", nargs="+", metavar="RUN.json")
    add_allow_partial(add, "store a partial run (tlbench.partial), labelled partial (default: not stored, exit 2)")
    imp = hist_sub.add_parser("import-dir", **parser_args(
        "add every results JSON below a folder (e.g. results/)",
        "Store every results file below a folder; files that are not tlbench results are named and left out.",
        exit_codes("done", unusable="the folder or the database cannot be used")))
    imp.add_argument("folder", metavar="DIR")
    show = hist_sub.add_parser("show", **parser_args(
        "the trend of matching cases as a table",
        "One row per case and testbed: its own last runs, its best, % of peak and its latest level change.",
        exit_codes("shown", unusable="no such database, or no case matches")))
    show.add_argument("case_glob", nargs="?", default=None, metavar="CASE-GLOB", help="shell-style, e.g. '*8192*-s3'")
    show.add_argument("--testbed", default=None, help="a testbed id, or words matched against backend/device/host/versions")
    show.add_argument("--kind", choices=("compile", "device"), default=None)
    show.add_argument("--last", type=positive, default=6, help="each case's last N runs shown (default 6)")
    add_json(show, "the series")
    for parser in (add, imp, show):
        add_history(parser, DEFAULT_HISTORY, "database file")
    hist.set_defaults(handler=run_history)


def _annotator():
    from .peak_source import annotate_from_backends

    return annotate_from_backends()


def _print_outcomes(outcomes: list[ingest.AddOutcome], unusable: str) -> bool:
    """Print each file's line and the counts; whether any file was unusable."""
    for outcome in outcomes:
        print(outcome.line())
    count = {status: sum(o.status == status for o in outcomes) for status in ("added", "skipped", "unusable")}
    print(f"history: {count['added']} added, {count['skipped']} already stored, {count['unusable']} {unusable}")
    return count["unusable"] > 0


def run_history(args: argparse.Namespace) -> int:
    conn = open_history(args.history, create=args.history_command != "show")
    try:
        if args.history_command == "add":
            bad = _print_outcomes(ingest.add_files(conn, args.files, _annotator(), args.allow_partial), "not added")
            return EXIT_UNUSABLE if bad else EXIT_OK
        if args.history_command == "import-dir":
            _print_outcomes(ingest.import_dir(conn, args.folder, _annotator()), "not tlbench results (left out)")
            return EXIT_OK
        return _show(conn, args)
    finally:
        conn.close()


def _show(conn, args: argparse.Namespace) -> int:
    beds = query.testbeds(conn, args.testbed)
    if args.testbed and not beds:
        known = "; ".join(f"[{t.testbed_id}] {t.describe()}" for t in query.testbeds(conn)) or "none"
        raise HistoryError(f"no testbed matches --testbed {args.testbed!r}; stored: {known}")
    skipped: list[str] = []
    found = query.series(conn, args.case_glob, [t.testbed_id for t in beds], args.kind, skipped=skipped)
    if not found:
        raise HistoryError(f"no case matches {args.case_glob or '*'} in {args.history} "
                           f"({query.run_count(conn)} runs stored" + (f", {len(skipped)} rows unreadable" if skipped else "")
                           + "); `tlbench history show` lists every case")
    trends = case_trends(found, args.last)
    if args.json:
        from ..results.report.json_report import history_json

        print_json(history_json(trends, str(args.history), skipped))
        return EXIT_OK
    out = console()
    for text, style in trend_table(trends, args.last, width()):
        out.print(text, style=style, highlight=False, markup=False, soft_wrap=True)
    print()
    for line in trend_legend(trends, args.last):
        print(line)
    for line in skipped_lines(skipped):
        print(line)
    return EXIT_OK
