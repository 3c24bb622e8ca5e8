"""``tlbench baseline update NEW.json [--out-dir DIR]``: replace the baselines with this run, deliberately.

Contract: ``run_baseline(args)`` writes ``DIR/<backend>-<device>.json`` per backend and says
whether each was created or replaced.  Refused (exit 2, nothing written): no timed items, a
partial run, an existing baseline without ``--force``, a target that is its own input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import EXIT_OK, UsageProblem, add_force, add_out_dir, exit_codes, parser_args
from .outputs import guard

DEFAULT_BASELINE_DIR = "results/baselines"


def register(sub: Any) -> None:
    base = sub.add_parser("baseline", **parser_args(
        "manage results/baselines/<backend>-<device>.json", "The baselines nightly gates against.",
        exit_codes("done")))
    base_sub = base.add_subparsers(dest="baseline_command", required=True, metavar="{update}")
    upd = base_sub.add_parser("update", **parser_args(
        "replace the baseline(s) with this run, deliberately",
        "Write one baseline file per backend of NEW.json: <DIR>/<backend>-<device>.json.",
        exit_codes("written", unusable="unusable input, a run without timed items, a partial run, an existing baseline "
                   "without --force, or a target that is NEW.json itself (nothing written)")))
    upd.add_argument("file", metavar="NEW.json")
    add_out_dir(upd, DEFAULT_BASELINE_DIR, "baseline folder")
    add_force(upd, "the baseline(s): replace an existing <backend>-<device>.json")
    upd.set_defaults(handler=run_baseline)


def run_baseline(args: argparse.Namespace) -> int:
    from ..results.report.partial_note import partial_lines
    from ..results.files.store import baseline_name, load_results, split_by_backend, write_document

    results = load_results(args.file)
    if not results.timed:
        raise UsageProblem(f"{results.name} has no timed items; a baseline needs samples")
    partial = partial_lines(results)
    if partial:
        raise UsageProblem(f"{partial[0].removeprefix('note: ')}; a partial run is no baseline (compare would refuse it): "
                           "finish the run (--tlbench-resume JOURNAL, or merge every shard) and update the baseline with that")
    targets = {backend: (document, Path(args.out_dir) / baseline_name(results.testbed(backend)))
               for backend, document in split_by_backend(results.document).items()}
    written = [target for _, target in targets.values()]
    guard(written, [args.file], False, replaceable=written)  # its input never, --force or not
    existing = [str(target) for target in written if target.exists()]
    if existing and not args.force:
        raise UsageProblem(f"{', '.join(existing)} exist(s): baseline update replaces a baseline only with --force "
                           "(nothing written); pass --force to replace it with this run")
    for backend, (document, target) in targets.items():
        action = "replaced" if target.exists() else "created"
        write_document(document, target)
        print(f"{action} {target} ({sum(1 for _ in document['benchmarks'])} items, {results.testbed(backend).describe()})")
    return EXIT_OK
