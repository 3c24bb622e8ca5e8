"""``tlbench merge SHARD.json... -o RUN.json``: the shards of a sharded run as one results file.

Contract: ``run_merge(args)`` merges the shards (``harness.results.files.shard_merge``), validates
and writes the file atomically and says what it holds.  Exit 0 all merged; 1 shards missing (the
file is written, marked partial; ``--allow-partial`` makes it 0); 2 unusable input or an output
that would destroy a file (nothing written).
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
        f"hosts {', '.join(hosts)}) into {args.output}: {len(results.timed)} timed, {len(results.failures)} failed, "
        f"{len(results.skips)} skipped of the run's {sharded['run_items']} items"
    )
    for line in merged.notes:
        print(line)
    partial = merged.document["tlbench"].get("partial")
    if not partial:
        return EXIT_OK
    shown = ", ".join(merged.missing_items[:5]) + (f" (+{len(merged.missing_items) - 5} more)" if len(merged.missing_items) > 5 else "")
    print(f"PARTIAL: {'; '.join(partial['reasons'])}" + (f"; missing: {shown}" if shown else ""))
    return EXIT_OK if args.allow_partial else EXIT_PARTIAL
