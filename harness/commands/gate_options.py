"""The options that make the gate fail closed: shared by compare and report.

Contract: ``add_compare_options(parser)`` (``--accept-missing``, ``--allow-partial``, ``--force``,
``--json``), ``add_report_options``; ``refuse_partial(base, new, allowed)`` raises ``PartialRun``
(exit 2) for a partial input unless allowed.
"""

from __future__ import annotations

import argparse
from typing import Mapping

from .common import add_allow_partial, add_force, add_json
from ..results.report.json_output import partial_of
from ..results.files.store import Results


class PartialRun(ValueError):
    """An input marked partial that compare was not told to allow; one line."""


def add_compare_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--accept-missing", action="store_true",
                        help="items of BASE that NEW did not measure (a narrower run) do not gate; default: they do (exit 1)")
    add_allow_partial(parser, "judge a run marked partial (killed, interrupted, recovered); default: refused (exit 2)")
    add_report_options(parser, "the verdicts")


def add_report_options(parser: argparse.ArgumentParser, what: str = "the table") -> None:
    add_force(parser, "--markdown/--png")
    add_json(parser, what)


def _describe(partial: Mapping[str, object]) -> str:
    why = partial.get("reason") or ("the run did not end" if not partial.get("run_ended") else "items are missing")
    held = partial.get("items_in_file", partial.get("items_in_journal"))
    of = partial.get("items_collected")
    return f"{why}; {held if held is not None else '?'} of {of or '?'} items"


def refuse_partial(base: Results, new: Results, allowed: bool) -> None:
    if allowed:
        return
    for results in (new, base):
        partial = partial_of(results)
        if partial:
            raise PartialRun(
                f"{results.path}: a PARTIAL run ({_describe(partial)}); finish it with pytest --tlbench-resume "
                f"{partial.get('journal') or 'ITS.journal.jsonl'}, or pass --allow-partial to judge what it holds"
            )
