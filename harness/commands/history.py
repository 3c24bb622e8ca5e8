"""``tlbench history add|import-dir|show``: the SQLite history of runs.

Contract: ``register(subparsers)`` adds ``history``; ``run_history(args)`` returns an exit code
(0 fine, 2 unusable input raised as ``HistoryError`` / ``ResultsError`` for harness/cli.py to
print as one line).  ``add`` and ``import-dir`` print one line per file
(added / skipped: already stored / not added: why) and exit 2 when a file named on the
command line could not be used - after storing every usable one.  ``add`` stores a partial run
only with ``--allow-partial`` (labelled partial, its line says PARTIAL); ``import-dir``, a
backfill, stores it so labelled and said; a run no reader could read (all-zero samples) is never stored.
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    EXIT_OK, EXIT_UNUSABLE, add_allow_partial, add_history, add_json, console, exit_codes, parser_args, positive, print_json, skipped_lines, width,
)

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


def _print_outcomes(outcomes: list[ingest.AddOutcome]) -> int:
    for outcome in outcomes:
        print(outcome.line())
    added = sum(1 for o in outcomes if o.status == "added")
    skipped = sum(1 for o in outcomes if o.status == "skipped")
    bad = [o for o in outcomes if o.status == "unusable"]
    print(f"history: {added} added, {skipped} already stored, {len(bad)} not added")
    return EXIT_UNUSABLE if bad else EXIT_OK


def run_history(args: argparse.Namespace) -> int:
    conn = open_history(args.history, create=args.history_command != "show")
    try:
        if args.history_command == "add":
            return _print_outcomes(ingest.add_files(conn, args.files, _annotator(), args.allow_partial))
        if args.history_command == "import-dir":
            outcomes = ingest.import_dir(conn, args.folder, _annotator())
            for o in outcomes:
                print(o.line())
            print(f"history: {sum(o.status == 'added' for o in outcomes)} added, "
                  f"{sum(o.status == 'skipped' for o in outcomes)} already stored, "
                  f"{sum(o.status == 'unusable' for o in outcomes)} not tlbench results (left out)")
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
