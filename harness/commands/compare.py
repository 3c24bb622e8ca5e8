"""``tlbench compare``: two runs (BASE NEW), backends (--across-backends), or a run and its history.

Contract: ``register(subparsers)`` adds the subcommand; ``run_compare(args)`` returns 0 (no
regression) or 1 (a regression); unusable input raises a one-line error (exit 2).
``--across-backends`` never gates; ``--json`` prints harness/results/report/json_output.py's
document; ``--markdown`` / ``--png`` are never written over an input without ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import gate_options
from .common import (EXIT_OK, EXIT_REGRESSION, UsageProblem, add_history, add_thresholds, console, exit_codes,
                     parser_args, positive, print_json, skipped_lines, thresholds, width, write_text)
from .outputs import guard


def register(sub: Any) -> None:
    cmp = sub.add_parser("compare", **parser_args(
        "compare two runs (BASE NEW), a run with its history (--history DB NEW), or backends (--across-backends)",
        "Judge NEW against BASE item by item (rank test, minimum effect, the run's own noise floor).",
        exit_codes("no regression (--across-backends: always, it does not gate)",
                   "regression (an item SLOWER, FAILED where it was not, MISSING, a gating shift or plan verdict)",
                   "unusable input: a missing or malformed file, runs of different testbeds, methods or backends, "
                   "a partial run not allowed, an output that would destroy an input")))
    cmp.add_argument("files", nargs="+", metavar="FILE", help="BASE.json NEW.json; NEW.json with --history; the runs to join with --across-backends")
    cmp.add_argument("--across-backends", action="store_true",
                     help="join the backends the files hold on the case id: each backend's stage curve beside the others'")
    add_thresholds(cmp)
    cmp.add_argument("--allow-testbed-mismatch", action="store_true",
                     help="compare runs of different accelerator / driver / tilelang anyway (labelled in every report)")
    cmp.add_argument("--allow-method-mismatch", action="store_true",
                     help="compare items measured another way (another timer or cache flush) anyway (labelled in every report)")
    cmp.add_argument("--markdown", metavar="OUT.md", help="also write the comparison as markdown")
    cmp.add_argument("--png", metavar="OUT.png", help="also plot it")
    gate_options.add_compare_options(cmp)
    add_history(cmp, None, "judge NEW.json against the history database instead of a BASE file")
    cmp.add_argument("--last", type=positive, default=5, help="with --history: the last N runs of the testbed (default 5)")
    cmp.add_argument("--statistic", choices=("best", "median"), default="best",
                     help="with --history: the reference run per item, rolling best or median (default best)")
    cmp.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    if args.history:
        return _compare_history(args)
    return _compare_backends(args) if args.across_backends else _compare_runs(args)


def _compare_runs(args: argparse.Namespace) -> int:
    from ..results.report import report
    from ..results.compare.compare import compare_runs
    from ..results.report.json_output import compare_json
    from ..results.report.partial_note import partial_lines
    from ..results.files.store import load_results

    if len(args.files) != 2:
        raise UsageProblem(f"compare takes BASE.json NEW.json (got {len(args.files)} files); use --across-backends to join backends")
    guard([args.markdown, args.png], args.files, args.force)
    base, new = (load_results(f) for f in args.files)
    gate_options.refuse_partial(base, new, args.allow_partial)
    comparison = compare_runs(base, new, thresholds(args), args.allow_testbed_mismatch, accept_missing=args.accept_missing,
                              allow_method_mismatch=args.allow_method_mismatch)
    failed = any(i.verdict.value == "FAILED" and i.is_regression for i in comparison.items)
    if comparison.compared == 0 and comparison.items and not failed:  # all failed: a regression, exit 1
        raise UsageProblem(f"no item of {base.name} was timed in {new.name}: nothing to compare (different suites or cases?)")
    code = EXIT_REGRESSION if comparison.has_regression else EXIT_OK
    if args.json:
        print_json(compare_json(comparison, code, [base, new]))
    else:
        report.print_comparison(comparison, console(), width(), partial_lines(base) + partial_lines(new))
    _write_files(args, comparison)
    return code


def _write_files(args: argparse.Namespace, comparison: Any) -> None:
    from ..results.report import report

    if args.markdown:
        write_text(args.markdown, report.comparison_markdown(comparison))
    if args.png:
        report.plot_comparison(comparison, args.png)


def _compare_backends(args: argparse.Namespace) -> int:
    from ..results.report import report
    from ..results.compare.compare_backends import compare_backends
    from ..results.report.json_report import across_json
    from ..results.files.store import load_results

    guard([args.markdown, args.png], args.files, args.force)
    across = compare_backends([load_results(f) for f in args.files])
    if args.json:
        print_json(across_json(across))
    else:
        report.print_across(across, console(), width())
    if args.markdown:
        write_text(args.markdown, report.across_markdown(across))
    if args.png:
        try:
            print(f"wrote {report.plot_across(across, args.png)}", file=sys.stderr if args.json else sys.stdout)
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
    return EXIT_OK


def _compare_history(args: argparse.Namespace) -> int:
    from ..results.report import report
    from ..results.history.judge import HistoryPolicy, compare_with_history
    from ..results.history.schema import HistoryError, open_history
    from ..results.report.json_output import compare_json, history_compare_extra
    from ..results.files.store import load_results

    if len(args.files) != 1:
        raise HistoryError(f"compare --history takes one NEW.json (got {len(args.files)} files)")
    guard([args.markdown, args.png], [*args.files, args.history], args.force)  # checked before anything is read
    new = load_results(args.files[0])
    gate_options.refuse_partial(new, new, args.allow_partial)
    conn = open_history(args.history, create=False)
    try:
        result = compare_with_history(conn, new, HistoryPolicy(args.statistic, args.last), thresholds(args), source=args.history,
                                      allow_method_mismatch=args.allow_method_mismatch)
    finally:
        conn.close()
    code = EXIT_REGRESSION if result.comparison.has_regression else EXIT_OK
    if args.json:
        document = compare_json(result.comparison, code, [new, new])  # its base is the history: replaced below
        print_json({**document, **history_compare_extra(result, args.statistic, args.last, str(args.history))})
    else:
        report.print_comparison(result.comparison, console(), width(), [])
        for line in report.history_reference_lines(result, args.statistic, args.last, str(args.history)):
            print(line)
        for line in skipped_lines(result.skipped, "could not be read or were refused as a record", shown=None):
            print(line)
    _write_files(args, result.comparison)
    return code
