"""The ``tlbench`` console script: compare, report, baseline update, nightly.

Contract: ``main(argv=None) -> int`` parses ``argv`` and returns the exit code:
0 = no regression, 1 = regression (an item SLOWER, or FAILED where it did not fail before,
items of the base not measured, a partial run), 2 = unusable input (missing or malformed
file, not pytest-benchmark output, a tlbench schema mismatch, runs of different backends or
testbeds, a history file that cannot be used, an output that would overwrite an input),
3 = internal error (a bug of tlbench: one line naming the file the traceback went to,
harness/crash.py).  Unusable input is one line on stderr and never a traceback.  Bad arguments are argparse's usage error (which lists valid
choices, exit 2).  All work is done by ``harness.results.compare`` / ``report`` / ``store`` /
``nightly``; this module only wires arguments to them.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import Sequence

from tlbench.harness import cli_recover
from tlbench.harness.crash import EXIT_INTERNAL, report_internal_error
from tlbench.harness.results.compare import compare_runs
from tlbench.harness.results.fraction_arg import command_fraction
from tlbench.harness.results.compare_backends import compare_backends
from tlbench.harness.results.comparison import CompareError
from tlbench.harness.results.judgement import Thresholds
from tlbench.harness.results.journal import JournalError
from tlbench.harness.results import plan_verdicts
from tlbench.harness.commands import calibrate as calibrate_command
from tlbench.harness.commands import gate_options
from tlbench.harness.commands.outputs import OutputRefused, guard, guard_folder
from tlbench.harness.commands import dashboard as dashboard_command
from tlbench.harness.commands import export as export_command
from tlbench.harness.commands import history as history_command
from tlbench.harness.commands import merge as merge_command
from tlbench.harness.results.history.schema import HistoryError
from tlbench.harness.results.store import ResultsError, baseline_name, load_results, split_by_backend, write_document

EXIT_OK, EXIT_REGRESSION, EXIT_UNUSABLE = 0, 1, 2
DEFAULT_BASELINE_DIR = "results/baselines"


class UsageProblem(ValueError):
    """A request that cannot be carried out; one line for stderr, exit 2."""


_fraction = command_fraction(0.05)  # --min-effect and the like


def _alpha(text: str) -> float:
    value = _fraction(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"alpha {text!r} must be between 0 and 1")
    return value


def _suite_effect(text: str) -> tuple[str, float]:
    suite, sep, value = text.partition("=")
    if not sep or not suite:
        raise argparse.ArgumentTypeError(f"{text!r}: expected SUITE=FRACTION, e.g. stages=0.08")
    return suite, _fraction(value)


def _add_thresholds(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--min-effect", type=_fraction, default=0.05, metavar="FRACTION",
                        help="smallest change of the median that counts (default 0.05 = 5 %%)")
    parser.add_argument("--min-effect-for", type=_suite_effect, action="append", default=[], metavar="SUITE=FRACTION",
                        help="per-suite minimum effect, e.g. stages=0.08 for suites/test_stages.py (repeatable)")
    parser.add_argument("--alpha", type=_alpha, default=0.05, help="Mann-Whitney U significance level (default 0.05)")
    plan_verdicts.add_options(parser)


def _installed_version() -> str:
    from tlbench import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tlbench", description="Compare, report and gate tlbench results (pytest-benchmark JSON).")
    parser.add_argument("--version", action="version", version=f"tlbench {_installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{compare,report,baseline,nightly,recover,history,export,dashboard,calibrate,merge}")

    cmp = sub.add_parser("compare", help="compare two runs (BASE NEW), or backends (--across-backends A B)",
                         description="Exit 0: no regression; 1: regression; 2: unusable input.")
    cmp.add_argument("files", nargs="+", metavar="FILE", help="BASE.json NEW.json, or the runs to join with --across-backends")
    cmp.add_argument("--across-backends", action="store_true", help="join backends on the case id: stage speedups side by side")
    _add_thresholds(cmp)
    cmp.add_argument("--allow-testbed-mismatch", action="store_true",
                     help="compare runs of different accelerator / driver / tilelang anyway (labelled in every report)")
    cmp.add_argument("--allow-method-mismatch", action="store_true",
                     help="compare items measured another way (another timer or cache flush) anyway (labelled in every report)")
    cmp.add_argument("--markdown", metavar="OUT.md", help="also write the comparison as markdown")
    cmp.add_argument("--png", metavar="OUT.png", help="also plot it")
    gate_options.add_compare_options(cmp)
    history_command.add_compare_options(cmp)

    rep = sub.add_parser("report", help="one run: table, markdown, plot")
    rep.add_argument("file", metavar="FILE.json")
    rep.add_argument("--markdown", metavar="OUT.md", help="also write markdown")
    rep.add_argument("--png", metavar="OUT.png", help="plot TFLOP/s (device) or compile time / modeled cycles vs num_stages per tile")
    rep.add_argument("--stages", action="store_true", help="the per-stage report of harness.analysis.stage_report")
    gate_options.add_report_options(rep)

    base = sub.add_parser("baseline", help="manage results/baselines/<backend>-<device>.json")
    base_sub = base.add_subparsers(dest="baseline_command", required=True, metavar="{update}")
    upd = base_sub.add_parser("update", help="replace the baseline(s) with this run, deliberately")
    upd.add_argument("file", metavar="NEW.json")
    upd.add_argument("--dir", default=DEFAULT_BASELINE_DIR, help=f"baseline directory (default {DEFAULT_BASELINE_DIR})")

    _add_nightly(sub.add_parser("nightly", help="run suites one process each, compare with the baselines, write markdown",
                                description="Exit 0: no regression; 1: regression; 2: a suite crashed / timed out, "
                                            "or a baseline could not be compared."))
    cli_recover.add_parser(sub)
    history_command.register(sub)
    export_command.register(sub)
    dashboard_command.register(sub)
    calibrate_command.register(sub)
    merge_command.register(sub)
    return parser


def _add_nightly(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="*", metavar="SUITE", help="suite files, or folders of test_*.py suites")
    parser.add_argument("--from-results", action="append", default=[], metavar="RUN.json",
                        help="gate this results file (e.g. `tlbench merge` of a sharded run) instead of running suites (repeatable)")
    parser.add_argument("--backend", default="auto", help="--backend for every suite: a name, a comma list, or auto")
    parser.add_argument("--pytest-args", default="", metavar="ARGS",
                        help='extra pytest arguments, one string: "--tlbench-kind=compile --tlbench-scope=smoke"')
    parser.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS", help="per suite file (default 3600)")
    parser.add_argument("--out-dir", default="results/runs/nightly", help="JSON, logs and summary.md go here")
    parser.add_argument("--baseline-dir", default=DEFAULT_BASELINE_DIR, help=f"(default {DEFAULT_BASELINE_DIR})")
    parser.add_argument("--history", default=None, metavar="DB", help="also add the night's runs to this history database")
    parser.add_argument("--no-remeasure", dest="remeasure", action="store_false",
                        help="gate on the first comparison (default: flagged items are re-measured once, and only what reproduces gates)")
    parser.add_argument("--force", action="store_true",
                        help="write into the baseline directory or over an input file (default: refused, exit 2)")
    _add_thresholds(parser)


def _console():
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 200, soft_wrap=False)


def _write_text(path: str, text: str) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


def _thresholds(args: argparse.Namespace) -> Thresholds:
    return Thresholds(min_effect=args.min_effect, alpha=args.alpha, min_effect_by_suite=dict(args.min_effect_for),
                      **plan_verdicts.threshold_values(args))


def _compare_runs(args: argparse.Namespace) -> int:
    from tlbench.harness.results import report

    if len(args.files) != 2:
        raise UsageProblem(f"compare takes BASE.json NEW.json (got {len(args.files)} files); use --across-backends to join backends")
    guard([args.markdown, args.png], args.files, args.force)
    base, new = (load_results(f) for f in args.files)
    gate_options.refuse_partial(base, new, args.accept_partial)
    comparison = compare_runs(base, new, _thresholds(args), args.allow_testbed_mismatch, accept_missing=args.accept_missing,
                              allow_method_mismatch=args.allow_method_mismatch)
    failed = any(i.verdict.value == "FAILED" and i.is_regression for i in comparison.items)
    if comparison.compared == 0 and comparison.items and not failed:  # all failed: a regression, exit 1
        raise UsageProblem(f"no item of {base.name} was timed in {new.name}: nothing to compare (different suites or cases?)")
    code = EXIT_REGRESSION if comparison.has_regression else EXIT_OK
    if args.json:
        gate_options.print_json(gate_options.compare_json(comparison, code, [base, new]))
    else:
        for line in cli_recover.partial_lines(base) + cli_recover.partial_lines(new):
            print(line)
        report.print_comparison(comparison, _console())
    if args.markdown:
        _write_text(args.markdown, report.comparison_markdown(comparison))
    if args.png:
        report.plot_comparison(comparison, args.png)
    return code


def _compare_backends(args: argparse.Namespace) -> int:
    from tlbench.harness.results import report

    guard([args.markdown, args.png], args.files, args.force)
    across = compare_backends([load_results(f) for f in args.files])
    report.print_across(across, _console())
    if args.markdown:
        _write_text(args.markdown, report.across_markdown(across))
    if args.png:
        print(f"wrote {report.plot_across(across, args.png)}")
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    guard([args.markdown, args.png], [args.file], args.force)
    if args.stages and args.json:
        raise UsageProblem("report --stages has no --json; use report --json for the run's items")
    if args.stages:
        try:
            from tlbench.harness.analysis import stage_report
        except ImportError as exc:
            print(f"tlbench: report --stages is not available here ({exc})", file=sys.stderr)
            return EXIT_UNUSABLE
        return int(stage_report.main(args.file, png=args.png, markdown=args.markdown) or 0)
    from tlbench.harness.results import report

    results = load_results(args.file)
    if args.json:
        gate_options.print_json(gate_options.report_json(results))
    else:
        report.print_run(results, _console())
    if args.markdown:
        _write_text(args.markdown, report.run_markdown(results))
    if args.png:
        try:
            print(f"wrote {report.plot_run(results, args.png)}")
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
    return EXIT_OK


def _baseline_update(args: argparse.Namespace) -> int:
    results = load_results(args.file)
    if not results.records:
        raise UsageProblem(f"{results.name} has no timed items; a baseline needs samples")
    targets = {backend: (document, Path(args.dir) / baseline_name(results.testbed(backend)))
               for backend, document in split_by_backend(results.document).items()}
    guard([t for _, t in targets.values()], [args.file], False, replaceable=[t for _, t in targets.values()])
    for backend, (document, target) in targets.items():
        action = "replaced" if target.exists() else "created"
        write_document(document, target)
        print(f"{action} {target} ({sum(1 for _ in document['benchmarks'])} items, {results.testbed(backend).describe()})")
    return EXIT_OK


def _pytest_args(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageProblem(f"--pytest-args {text!r}: {exc} (quote it as one shell string)") from None


def _nightly(args: argparse.Namespace) -> int:
    from tlbench.harness.results.nightly import NightlyPlan, run_nightly

    missing = [s for s in args.suites if not Path(s).exists()]
    if not args.suites and not args.from_results:
        raise UsageProblem("nightly takes suite files or folders to run, or --from-results RUN.json to gate")
    if missing:
        raise UsageProblem(f"no such suite file or folder: {', '.join(missing)}")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    inputs = [*args.from_results, *([args.history] if args.history else [])]
    guard_folder(args.out_dir, inputs, args.force, keep=[args.baseline_dir])
    plan = NightlyPlan(
        suites=tuple(Path(s) for s in args.suites),
        backend=args.backend,
        out_dir=Path(args.out_dir),
        baseline_dir=Path(args.baseline_dir),
        pytest_args=_pytest_args(args.pytest_args),
        timeout_s=args.timeout,
        thresholds=_thresholds(args),
        step_summary=Path(step_summary) if step_summary else None,
        history=Path(args.history) if args.history else None,
        remeasure=args.remeasure,
        given=tuple(Path(p) for p in args.from_results),
        guard=lambda paths: guard(paths, inputs, args.force, keep=[args.baseline_dir], replaceable=paths),
    )
    try:
        outcome = run_nightly(plan)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    print(outcome.markdown)
    print(f"summary: {outcome.summary_path}")
    return outcome.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except (ResultsError, CompareError, UsageProblem, JournalError, HistoryError, OutputRefused, gate_options.PartialRun) as exc:
        print(f"tlbench: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except OSError as exc:
        print(f"tlbench: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except sqlite3.Error as exc:  # the history file: read-only, locked, corrupt
        print(f"tlbench: history database: {exc}; check the --history file (writable, not in use, a tlbench history)", file=sys.stderr)
        return EXIT_UNUSABLE
    except KeyboardInterrupt:
        print("tlbench: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug of ours: exit 3, never 1 (a regression) or 2
        return report_internal_error(exc, argv)


def _dispatch(args: argparse.Namespace) -> int:
    if getattr(args, "handler", None) is not None:
        return args.handler(args)
    if args.command == "compare" and args.history:
        return history_command.compare_history(args, _thresholds(args), _console())
    if args.command == "compare":
        return _compare_backends(args) if args.across_backends else _compare_runs(args)
    if args.command == "report":
        return _report(args)
    if args.command == "baseline":
        return _baseline_update(args)
    if args.command == "recover":
        return cli_recover.run(args)
    return _nightly(args)


if __name__ == "__main__":
    sys.exit(main())
