"""``tlbench export --format github-action-benchmark RUN.json --out DIR``.

Contract: writes ``DIR/tflops-bigger-is-better.json`` (use with the action's
``tool: customBiggerIsBetter``) and ``DIR/time-smaller-is-better.json``
(``tool: customSmallerIsBetter``), prints both paths with their tool, exits 0; an unusable
RUN.json raises ``ResultsError``, and a file to write that is RUN.json itself or another tlbench
results file or journal ``OutputRefused`` (harness/commands/outputs.py; exit 2 from
``harness.cli``, nothing written).
"""

from __future__ import annotations

import argparse
from typing import Any

FORMATS = ("github-action-benchmark",)


def register(sub: Any) -> None:
    exp = sub.add_parser("export", help="write a run in another tool's format (github-action-benchmark)")
    exp.add_argument("file", metavar="RUN.json")
    exp.add_argument("--format", choices=FORMATS, required=True)
    exp.add_argument("--out", default="results/runs/export", metavar="DIR", help="folder for the files (default results/runs/export)")
    exp.add_argument("--force", action="store_true", help="write over the input or a tlbench results file (default: refused)")
    exp.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from tlbench.harness.results.export import write_github_action_benchmark
    from tlbench.harness.results.store import load_results

    from pathlib import Path

    from tlbench.harness.commands.outputs import guard
    from tlbench.harness.results.export import BIGGER_FILE, SMALLER_FILE

    guard([Path(args.out) / BIGGER_FILE, Path(args.out) / SMALLER_FILE], [args.file], getattr(args, "force", False))
    bigger, smaller = write_github_action_benchmark(load_results(args.file), args.out)
    print(f"wrote {bigger} (tool: customBiggerIsBetter, TFLOP/s)")
    print(f"wrote {smaller} (tool: customSmallerIsBetter, time)")
    return 0
