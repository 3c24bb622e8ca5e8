"""``tlbench nightly SUITE... | --from-results RUN.json``: run suites, gate them, write the summary.

Contract: ``run_nightly_command(args)`` builds a ``NightlyPlan`` from the options and returns the
night's exit code (0, 1 regression, 2 crash / timeout / bad options).  Nothing the night reads is
written over without ``--force``: the plan carries the check as ``NightlyPlan.guard``.
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import Any

from .baseline import DEFAULT_BASELINE_DIR
from .common import (UsageProblem, add_force, add_history, add_out_dir, add_thresholds, exit_codes,
    parser_args, thresholds)
from .outputs import guard, guard_folder


def register(sub: Any) -> None:
    parser = sub.add_parser("nightly", **parser_args(
        "run suites one process each, compare with the baselines, write markdown",
        "Run each suite in its own pytest process with a timeout (or gate --from-results files), judge each backend "
        "against its baseline or its history, and write the summary.",
        exit_codes("no regression", "regression",
                   "a suite crashed or timed out, a baseline could not be compared, unusable options, or an out-dir "
                   "that would write over an input or the baselines (nothing run)")
        + " 128 + the signal's number when the night is stopped by a signal: 130 SIGINT (Ctrl-C), 143 SIGTERM; "
          "the summary says which suites finished, and nothing is judged."))
    parser.add_argument("suites", nargs="*", metavar="SUITE", help="suite files, or folders of test_*.py suites")
    parser.add_argument("--from-results", action="append", default=[], metavar="RUN.json",
                        help="gate this results file (e.g. `tlbench merge` of a sharded run) instead of running suites (repeatable)")
    parser.add_argument("--backend", default="auto", help="--backend for every suite: a name, a comma list, or auto")
    parser.add_argument("--pytest-args", default="", metavar="ARGS",
                        help='extra pytest arguments, one string: "--tlbench-kind=compile --tlbench-scope=smoke"')
    parser.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS", help="per suite file (default 3600)")
    add_out_dir(parser, "results/runs/nightly", "JSON, logs and summary.md go here")
    parser.add_argument("--baseline-dir", default=DEFAULT_BASELINE_DIR, metavar="DIR",
                        help=f"the baselines to gate against (default {DEFAULT_BASELINE_DIR})")
    add_history(parser, None, "also add the night's runs to this history database, and gate against it where no baseline is")
    parser.add_argument("--no-remeasure", dest="remeasure", action="store_false",
                        help="gate on the first comparison (default: flagged items are re-measured once, and only what reproduces gates)")
    add_force(parser, "the night's files (into the baseline directory too)")
    add_thresholds(parser)
    parser.set_defaults(handler=run_nightly_command)


def _pytest_args(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageProblem(f"--pytest-args {text!r}: {exc} (quote it as one shell string)") from None


def run_nightly_command(args: argparse.Namespace) -> int:
    from ..results.nightly.nightly import NightlyPlan, run_nightly

    missing = [s for s in args.suites if not Path(s).exists()]
    if not args.suites and not args.from_results:
        raise UsageProblem("nightly takes suite files or folders to run, or --from-results RUN.json to gate")
    if missing:
        raise UsageProblem(f"no such suite file or folder: {', '.join(missing)}")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    inputs = [*args.from_results, *([args.history] if args.history else [])]
    guard_folder(args.out_dir, inputs, args.force, keep=[args.baseline_dir])
    plan = NightlyPlan(
        suites=tuple(Path(s) for s in args.suites), backend=args.backend, out_dir=Path(args.out_dir),
        baseline_dir=Path(args.baseline_dir), pytest_args=_pytest_args(args.pytest_args), timeout_s=args.timeout,
        thresholds=thresholds(args), step_summary=Path(step_summary) if step_summary else None,
        history=Path(args.history) if args.history else None, remeasure=args.remeasure,
        given=tuple(Path(p) for p in args.from_results),
        guard=lambda paths: guard(paths, inputs, args.force, keep=[args.baseline_dir], replaceable=paths),
    )
    try:
        outcome = run_nightly(plan)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    print(f"{outcome.markdown}\nsummary: {outcome.summary_path}")
    return outcome.exit_code
