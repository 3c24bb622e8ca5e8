"""``tlbench history add|import-dir|show`` and ``tlbench compare --history``.

Contract: ``register(subparsers)`` adds ``history``; ``add_compare_options(parser)`` adds
``--history/--last/--statistic`` to ``compare``; ``run_history(args)`` and
``compare_history(args, thresholds, console)`` return exit codes (0 fine, 1 regression,
2 unusable input raised as ``HistoryError`` / ``ResultsError`` / ``CompareError`` for
``harness.cli`` to print as one line).  ``add`` and ``import-dir`` print one line per file
(added / skipped: already stored / not added: why) and exit 2 when a file named on the
command line could not be used - after storing every usable one.
"""

from __future__ import annotations

import argparse
from typing import Any

from tlbench.harness.results.history.schema import DEFAULT_HISTORY, HistoryError, open_history
from tlbench.harness.results.history import ingest, query
from tlbench.harness.results.history.trend import trend_legend, trend_rows

EXIT_OK, EXIT_REGRESSION, EXIT_UNUSABLE = 0, 1, 2


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def register(sub: Any) -> None:
    hist = sub.add_parser("history", help="the SQLite history of runs: add, import-dir, show",
                          description=f"The history database (default {DEFAULT_HISTORY}).")
    hist_sub = hist.add_subparsers(dest="history_command", required=True, metavar="{add,import-dir,show}")
    add = hist_sub.add_parser("add", help="add results files (idempotent: a file already stored is skipped)")
    add.add_argument("files", nargs="+", metavar="RUN.json")
    imp = hist_sub.add_parser("import-dir", help="add every results JSON below a folder (e.g. results/)")
    imp.add_argument("folder", metavar="DIR")
    show = hist_sub.add_parser("show", help="the trend of matching cases as a table")
    show.add_argument("case_glob", nargs="?", default=None, metavar="CASE-GLOB", help="shell-style, e.g. '*8192*-s3'")
    show.add_argument("--testbed", default=None, help="a testbed id, or words matched against backend/device/versions")
    show.add_argument("--kind", choices=("compile", "device"), default=None)
    show.add_argument("--last", type=_positive, default=6, help="runs shown as columns (default 6)")
    show.add_argument("--json", action="store_true", help="print the series as one JSON document on stdout (shape: README)")
    for parser in (add, imp, show):
        parser.add_argument("--history", default=DEFAULT_HISTORY, metavar="DB", help=f"database file (default {DEFAULT_HISTORY})")
    hist.set_defaults(handler=run_history)


def add_compare_options(cmp: argparse.ArgumentParser) -> None:
    cmp.add_argument("--history", metavar="DB", default=None,
                     help="judge NEW.json against the history database instead of a BASE file")
    cmp.add_argument("--last", type=_positive, default=5, help="with --history: the last N runs of the testbed (default 5)")
    cmp.add_argument("--statistic", choices=("best", "median"), default="best",
                     help="with --history: the reference run per item, rolling best or median (default best)")


def _annotator():
    from tlbench.harness.commands.peak_source import annotate_from_backends

    return annotate_from_backends()


def _print_outcomes(outcomes: list[ingest.AddOutcome]) -> int:
    for outcome in outcomes:
        print(outcome.line())
    added = sum(1 for o in outcomes if o.status == "added")
    skipped = sum(1 for o in outcomes if o.status == "skipped")
    bad = [o for o in outcomes if o.status == "unusable"]
    print(f"history: {added} added, {skipped} already stored, {len(bad)} not added")
    return EXIT_UNUSABLE if bad else EXIT_OK


def format_grid(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return [line(header), line(["-" * w for w in widths]), *[line(r) for r in rows]]


def run_history(args: argparse.Namespace) -> int:
    conn = open_history(args.history, create=args.history_command != "show")
    try:
        if args.history_command == "add":
            return _print_outcomes(ingest.add_files(conn, args.files, _annotator()))
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
    found = query.series(conn, args.case_glob, [t.testbed_id for t in beds], args.kind)
    if not found:
        raise HistoryError(f"no case matches {args.case_glob or '*'} in {args.history} "
                           f"({query.run_count(conn)} runs stored); `tlbench history show` lists every case")
    if getattr(args, "json", False):
        from tlbench.harness.commands.gate_options import print_json
        from tlbench.harness.results.json_output import history_json

        print_json(history_json(found, args.last, str(args.history)))
        return EXIT_OK
    header, rows = trend_rows(found, args.last)
    for line in format_grid(header, rows):
        print(line)
    print()
    for line in trend_legend(found, args.last):
        print(line)
    return EXIT_OK


def compare_history(args: argparse.Namespace, thresholds, console) -> int:
    from tlbench.harness.results import report
    from tlbench.harness.results.history.judge import HistoryPolicy, compare_with_history
    from tlbench.harness.results.store import load_results

    from tlbench.harness.commands.outputs import guard

    if len(args.files) != 1:
        raise HistoryError(f"compare --history takes one NEW.json (got {len(args.files)} files)")
    guard([args.markdown, getattr(args, "png", None)], [*args.files, args.history], getattr(args, "force", False))
    new = load_results(args.files[0])
    conn = open_history(args.history, create=False)
    try:
        result = compare_with_history(conn, new, HistoryPolicy(args.statistic, args.last), thresholds, source=args.history,
                                      allow_method_mismatch=args.allow_method_mismatch)
    finally:
        conn.close()
    code = EXIT_REGRESSION if result.comparison.has_regression else EXIT_OK
    if getattr(args, "json", False):
        from tlbench.harness.commands.gate_options import print_json
        from tlbench.harness.results.json_output import compare_json, history_compare_extra

        document = compare_json(result.comparison, code, [new, new])  # its base is the history: replaced below
        print_json({**document, **history_compare_extra(result, args.statistic, args.last, str(args.history))})
        _write_reports(args, result.comparison)
        return code
    report.print_comparison(result.comparison, console)
    print(f"reference per item: the {args.statistic} of its last {args.last} runs on the same testbed in {args.history}")
    for bed in result.testbeds:
        print(f"  testbed {bed.testbed_id}: {bed.describe()}")
    for key, text in sorted(result.references.items(), key=lambda kv: kv[0].case_id):
        print(f"  {key.kind}-{key.backend}-{key.case_id}: {text}")
    if result.skipped:
        print(f"stored rows left out ({len(result.skipped)}: unreadable, or refused as a record):")
        for line in result.skipped:
            print(f"  {line}")
    if result.steps:
        print("level changes (step detection over each item's history, then the new run):")
        for found in result.steps:
            s = found.step
            print(f"  {found.key.kind}-{found.key.backend}-{found.key.case_id}: {s.change:+.1%} "
                  f"({s.before:.4g} -> {s.after:.4g}) starting at {found.at}")
    _write_reports(args, result.comparison)
    return code


def _write_reports(args: argparse.Namespace, comparison) -> None:
    """--markdown and --png of a history comparison (checked by the output guard before anything was read)."""
    from pathlib import Path

    from tlbench.harness.results import report

    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(report.comparison_markdown(comparison), encoding="utf-8")
    if getattr(args, "png", None):
        report.plot_comparison(comparison, args.png)
