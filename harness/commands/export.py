"""``tlbench export --format github-action-benchmark RUN.json [--out-dir DIR]``.

Contract: writes the action's bigger- and smaller-is-better files for the entries the run has
(an empty list is not written, and said).  A partial run, failed items, an item twice or nothing
to export is exit 2 (``--allow-partial`` exports what it holds); outputs over a results file need
``--force``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import EXIT_OK, UsageProblem, add_allow_partial, add_force, add_out_dir, exit_codes, parser_args
from .outputs import guard

FORMATS = ("github-action-benchmark",)


def register(sub: Any) -> None:
    exp = sub.add_parser("export", **parser_args(
        "write a run in another tool's format (github-action-benchmark)",
        "Write the files benchmark-action/github-action-benchmark reads (custom bigger/smaller-is-better JSON).",
        exit_codes("written (a list that would be empty is not written, and named)",
                   unusable="unusable input, nothing to export, a partial run or failed items without --allow-partial, "
                            "or an output that would destroy a file")))
    exp.add_argument("file", metavar="RUN.json")
    exp.add_argument("--format", choices=FORMATS, required=True)
    add_out_dir(exp, "results/runs/export", "folder for the files")
    add_allow_partial(exp, "export a partial run, or one with failed items, saying what is left out (default: refused, exit 2)")
    add_force(exp, "the files")
    exp.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from ..results.export.export import BIGGER_FILE, SMALLER_FILE, github_action_benchmark, left_out, write_github_action_benchmark
    from ..results.compare.compare import index_items
    from ..results.compare.comparison import CompareError
    from ..results.files.store import load_results

    out = Path(args.out_dir)
    guard([out / BIGGER_FILE, out / SMALLER_FILE], [args.file], args.force)
    results = load_results(args.file)
    try:
        index_items(results, results.timed)
    except CompareError as exc:  # an item twice: compare refuses the file, so nothing is exported (the action would pair [#1]/[#2] wrongly)
        raise UsageProblem(f"{exc} (compare refuses this file, so nothing is exported)") from None
    lacking = left_out(results)
    if lacking and not args.allow_partial:
        raise UsageProblem(f"{results.path}: {'; '.join(lacking)}: an export would hold only what was measured, and the action "
                           "would alert on nothing for the rest; finish the run, or pass --allow-partial to export what it holds")
    export = github_action_benchmark(results)
    if not export.smaller:
        raise UsageProblem(f"{results.path}: no timed item: nothing to export (a run of skipped or failed items only)")
    written, not_written = write_github_action_benchmark(export, out)
    for path, tool, count in written:
        print(f"wrote {path} (tool: {tool}, {count} entries)")
    for line in not_written:
        print(line)
    if lacking:
        print(f"note: exported what the run holds; left out: {'; '.join(lacking)}")
    return EXIT_OK
