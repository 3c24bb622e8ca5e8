"""``tlbench merge SHARD.json... -o RUN.json``: the shards of a sharded run as one results file.

Contract: ``register(subparsers)`` adds the subcommand; ``run_merge(args)`` loads every shard
file (``harness.results.files.store``), merges them (``harness.results.files.shard_merge``: one run,
same commit, code, options and item set, each item once), validates the merged document
with the results store and writes it atomically, then prints what it holds.  An output that is
one of its inputs, or an existing complete results file or journal, is refused without
``--force`` (an earlier partial merge may be replaced, as recover replaces a recovery).  Exit 0: every
shard merged; 1: shards are missing (or a shard left items without a result): the file is
written anyway, marked ``tlbench.partial`` (the missing shards and items named), and this
says which - ``--allow-partial`` makes that exit 0; 2: unusable input, a shard of another
commit or run included (``ResultsError``, one line naming the file, from ``harness.cli``),
or an output that is an input shard, an existing results file or a journal without ``--force``
(harness/commands/outputs.py), and nothing is written.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import EXIT_OK, EXIT_REGRESSION as EXIT_PARTIAL, add_allow_partial, add_force, add_output, exit_codes, parser_args


def register(sub: Any) -> None:
    merge = sub.add_parser("merge", **parser_args(
        "merge the shards of a --tlbench-shard run into one results file", "Put the shards of one sharded run back together.",
        exit_codes("all shards merged", "written but partial (shards missing; --allow-partial makes that 0)",
                   "unusable input, shards of different runs, or an output that would destroy a file (nothing written)")))
    merge.add_argument("files", nargs="+", metavar="SHARD.json")
    add_output(merge, "RUN.json", "the merged results file", required=True)
    add_allow_partial(merge, "exit 0 when shards are missing (the file still says partial)")
    add_force(merge, "RUN.json")
    merge.set_defaults(handler=run_merge)


def run_merge(args: argparse.Namespace) -> int:
    from .outputs import guard
    from ..results.files.journal import atomic_write_text
    from ..results.files.shard_merge import merge_shards
    from ..results.files.store import load_results, parse_results

    guard([args.output], args.files, args.force)  # an earlier partial merge may be replaced; an input or a complete run not
    merged = merge_shards([load_results(f) for f in args.files])
    results = parse_results(merged.document, args.output)  # never write a file the readers would refuse
    atomic_write_text(args.output, json.dumps(merged.document, indent=1, default=str) + "\n")
    sharded = merged.document["tlbench"]["sharded"]
    hosts = list(dict.fromkeys(str(s["host"]) for s in sharded["shards"]))
    print(
        f"merged {len(sharded['shards'])} of {sharded['count']} shards ({', '.join(s['label'] for s in sharded['shards'])}; "
        f"hosts {', '.join(hosts)}) into {args.output}: {len(results.records)} timed, {len(results.failed)} failed, "
        f"{len(results.skipped)} skipped of the run's {sharded['run_items']} items"
    )
    for line in merged.notes:
        print(line)
    partial = merged.document["tlbench"].get("partial")
    if not partial:
        return EXIT_OK
    shown = ", ".join(merged.missing_items[:5]) + (f" (+{len(merged.missing_items) - 5} more)" if len(merged.missing_items) > 5 else "")
    print(f"PARTIAL: {'; '.join(partial['reasons'])}" + (f"; missing: {shown}" if shown else ""))
    return EXIT_OK if args.allow_partial else EXIT_PARTIAL
