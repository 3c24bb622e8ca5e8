"""The options that make the gate fail closed, and ``--json``: shared by compare and report.

Contract: ``add_compare_options(parser)`` adds ``--accept-missing`` (items of the base not
measured in NEW do not gate), ``--accept-partial`` (judge a run marked partial - killed,
interrupted, recovered - instead of refusing it), ``--force`` (write outputs over an input
or a results file) and ``--json``; ``add_report_options`` adds ``--force`` and ``--json``.
``refuse_partial(base, new, accepted)`` raises ``PartialRun`` (a ``ValueError``, one line,
exit 2) when either input is marked ``tlbench.partial`` and the user did not accept it.
``print_json(document)`` writes one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tlbench.harness.results.json_output import compare_json, partial_of, report_json  # noqa: F401  (re-exported)
from tlbench.harness.results.store import Results


class PartialRun(ValueError):
    """An input marked partial that compare was not told to accept; one line."""


def add_compare_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--accept-missing", action="store_true",
                        help="items of BASE that NEW did not measure (a narrower run) do not gate; default: they do (exit 1)")
    parser.add_argument("--accept-partial", action="store_true",
                        help="judge a run marked partial (killed, interrupted, recovered); default: refused (exit 2)")
    add_report_options(parser)


def add_report_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="write --markdown/--png over an input file or an existing results file (default: refused)")
    parser.add_argument("--json", action="store_true",
                        help="print the verdicts as one JSON document on stdout instead of the tables (shape: README)")


def _describe(partial: dict[str, Any]) -> str:
    why = partial.get("reason") or ("the run did not end" if not partial.get("run_ended") else "items are missing")
    held = partial.get("items_in_file", partial.get("items_in_journal"))
    of = partial.get("items_collected")
    return f"{why}; {held if held is not None else '?'} of {of or '?'} items"


def refuse_partial(base: Results, new: Results, accepted: bool) -> None:
    if accepted:
        return
    for results in (new, base):
        partial = partial_of(results)
        if partial:
            raise PartialRun(
                f"{results.path}: a PARTIAL run ({_describe(partial)}); finish it with pytest --tlbench-resume "
                f"{partial.get('journal') or 'ITS.journal.jsonl'}, or pass --accept-partial to judge what it holds"
            )


def print_json(document: dict[str, Any]) -> None:
    json.dump(document, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")
