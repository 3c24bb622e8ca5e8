"""``tlbench report FILE``: one run as a table (or JSON, markdown, a plot); ``--stages``: the stage report.

Contract: ``register(subparsers)`` adds the subcommand; ``run_report(args)`` prints the table or,
with ``--json``, its document; exit 0, or 2 on unusable input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import gate_options
from .common import (EXIT_OK, EXIT_UNUSABLE, UsageProblem, console, exit_codes, parser_args, print_json, width,
    write_text)
from .outputs import guard


def register(sub: Any) -> None:
    rep = sub.add_parser("report", **parser_args(
        "one run: table, JSON, markdown, plot; --stages: how many pipeline stages to use",
        "Report one results file.", exit_codes("read")))
    rep.add_argument("file", metavar="FILE.json")
    rep.add_argument("--markdown", metavar="OUT.md", help="also write markdown")
    rep.add_argument("--png", metavar="OUT.png", help="plot TFLOP/s (device) or compile time / modeled cycles vs num_stages per tile")
    rep.add_argument("--stages", action="store_true",
                     help="the stage report: per tile, each num_stages against the others, the vendor item and the pipeline model")
    gate_options.add_report_options(rep, "the table (with --stages: the stage report)")
    rep.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    guard([args.markdown, args.png], [args.file], args.force)
    if args.stages:
        return _stages(args)
    from ..results.report import report
    from ..results.report.json_report import report_json
    from ..results.report.report_cells import facts
    from ..results.files.store import load_results

    results = load_results(args.file)
    if args.json:
        print_json(report_json(results, facts(results)))
    else:
        report.print_run(results, console(), width())
    if args.markdown:
        write_text(args.markdown, report.run_markdown(results))
    if args.png:
        try:
            print(f"wrote {report.plot_run(results, args.png)}")
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
    return EXIT_OK


def _stages(args: argparse.Namespace) -> int:
    try:
        from ..analysis import stage_report
    except ImportError as exc:
        print(f"tlbench: report --stages is not available here ({exc})", file=sys.stderr)
        return EXIT_UNUSABLE
    return int(stage_report.main(args.file, png=args.png, markdown=args.markdown, as_json=args.json) or 0)
