"""``tlbench baseline update NEW.json [--out-dir DIR]``: replace the baselines with this run, deliberately.

Contract: ``register(subparsers)`` adds the subcommand; ``run_baseline(args)`` splits the run by
backend and writes ``DIR/<backend>-<device>.json`` for each (default ``results/baselines``),
saying for each whether it was created or replaced; a run without timed items is refused
(``UsageProblem``, exit 2).  Replacing a baseline is this command's purpose, so it needs no
``--force``; it never writes over its own input (harness/commands/outputs.py's guard, checked for
every target before anything is written).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tlbench.harness.commands.common import EXIT_OK, UsageProblem, add_out_dir, exit_codes, parser_args
from tlbench.harness.commands.outputs import guard

DEFAULT_BASELINE_DIR = "results/baselines"


def register(sub: Any) -> None:
    base = sub.add_parser("baseline", **parser_args(
        "manage results/baselines/<backend>-<device>.json", "The baselines nightly gates against.",
        exit_codes("done")))
    base_sub = base.add_subparsers(dest="baseline_command", required=True, metavar="{update}")
    upd = base_sub.add_parser("update", **parser_args(
        "replace the baseline(s) with this run, deliberately",
        "Write one baseline file per backend of NEW.json: <DIR>/<backend>-<device>.json.",
        exit_codes("written", unusable="unusable input, a run without timed items, or a target that is NEW.json itself "
                   "(nothing written)")))
    upd.add_argument("file", metavar="NEW.json")
    add_out_dir(upd, DEFAULT_BASELINE_DIR, "baseline folder")
    upd.set_defaults(handler=run_baseline)


def run_baseline(args: argparse.Namespace) -> int:
    from tlbench.harness.results.store import baseline_name, load_results, split_by_backend, write_document

    results = load_results(args.file)
    if not results.records:
        raise UsageProblem(f"{results.name} has no timed items; a baseline needs samples")
    targets = {backend: (document, Path(args.out_dir) / baseline_name(results.testbed(backend)))
               for backend, document in split_by_backend(results.document).items()}
    written = [target for _, target in targets.values()]
    guard(written, [args.file], False, replaceable=written)  # replacing a baseline is the point; its input never
    for backend, (document, target) in targets.items():
        action = "replaced" if target.exists() else "created"
        write_document(document, target)
        print(f"{action} {target} ({sum(1 for _ in document['benchmarks'])} items, {results.testbed(backend).describe()})")
    return EXIT_OK
