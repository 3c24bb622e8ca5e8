"""``tlbench search-replay RUN.json[.gz] ...``: the model-guided search replayed on committed exhaustive sweeps.

Contract: ``run_search_replay(args)`` replays the search on each exhaustive sweep with at least
``--min-configs`` legal configs, the recorded times as its oracle, and prints the table (or
``--json``); exit 0, or 2 when a file is not a run or no sweep qualifies.
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, UsageProblem, exit_codes, parser_args, positive, print_json, width
from ..results.files.fraction_arg import command_fraction


def register(sub: Any) -> None:
    cmd = sub.add_parser("search-replay", **parser_args(
        "replay the model-guided search on committed exhaustive sweeps (no device needed)",
        "Run the search (rank the legal configs from the plan, measure the top ones and a few probes, re-rank, "
        "stop by a stated rule) against each exhaustive sweep in the files, answering each config it asks for "
        "with the recorded time; print per problem the configs, measured, best found against the exhaustive "
        "best and Kendall tau.", exit_codes("the table was printed")))
    cmd.add_argument("files", nargs="+", metavar="RUN.json[.gz]")
    cmd.add_argument("--min-configs", type=positive, default=20,
                     help="replay only sweeps with at least this many legal configs (default 20)")
    cmd.add_argument("--max-fraction", type=command_fraction(0.25), default=0.25,
                     help="the search measures at most this share of a sweep's configs (default 0.25)")
    cmd.add_argument("--patience", type=positive, default=8,
                     help="stop once the best stayed the best for this many model-chosen measurements (default 8)")
    cmd.add_argument("--probes", type=int, default=2,
                     help="configs measured early to test the first-run ranking (default 2)")
    cmd.add_argument("--learn-from", action="append", default=[], metavar="EARLIER.json[.gz]",
                     help="an earlier run the ranker may learn from (repeatable): its timed configs of the same suite on "
                          "the same device, other problems only (a replayed problem's own times never reach its ranker); "
                          "default: none, every search is a first run")
    cmd.add_argument("--json", action="store_true",
                     help="print one JSON document instead of the table: the rows, the stopping rule, and per problem every "
                          "measured config (why chosen, predicted rank) and every skipped one (reason, predicted rank)")
    cmd.set_defaults(handler=run_search_replay)


def run_search_replay(args: argparse.Namespace) -> int:
    from ..results.files.store import load_results
    from ..search.replay import qualifying, replay, sweeps_of
    from ..search.replay_table import replay_lines, row_json, summary_lines
    from ..search.search import SearchSettings

    if not 0 < args.max_fraction <= 1:
        raise UsageProblem(f"--max-fraction {args.max_fraction:g}: must be more than 0 and at most 1")
    if args.probes < 0:
        raise UsageProblem(f"--probes {args.probes}: must be 0 or more")
    settings = SearchSettings(max_fraction=args.max_fraction, patience=args.patience, probes=args.probes)
    chosen, seen = [], []
    for path in args.files:
        sweeps = sweeps_of(load_results(path))
        seen += [f"{path}: {s.name} ({s.configs} configs{'' if s.exhaustive else f' of {s.legal} legal'})" for s in sweeps]
        chosen += qualifying(sweeps, args.min_configs)
    if not chosen:
        held = "; ".join(seen[:6]) + (f"; ... {len(seen) - 6} more" if len(seen) > 6 else "") if seen else "no device configs"
        raise UsageProblem(f"no exhaustive sweep with at least {args.min_configs} configs to replay in "
                           f"{', '.join(args.files)} (found: {held}); pass a run of a whole sweep or lower --min-configs")
    earlier = [s for path in args.learn_from for s in sweeps_of(load_results(path))]
    rows = [replay(s, settings, earlier=earlier) for s in chosen]
    if args.json:
        print_json({"rows": [row_json(r) for r in rows], "rule": settings.rule(), "max_fraction": args.max_fraction})
        return EXIT_OK
    for line in [*replay_lines(rows, width()), "", *summary_lines(rows, args.max_fraction)]:
        print(line)
    return EXIT_OK
