"""``tlbench recover JOURNAL [-o OUT.json]``: a results file from the journal of a run that did not finish.

Contract: ``run_recover(args)`` writes, atomically, a pytest-benchmark JSON marked partial that the
readers accept, prints what it holds and returns 0; unusable input is exit 2, and so is an output
that is a journal or a complete results file without ``--force``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .common import add_force, add_output, exit_codes, parser_args
from .outputs import guard
from ..results.files.journal import JOURNAL_SUFFIX, atomic_write_text, read_journal, recover_document
from ..results.report.partial_note import partial_lines
from ..results.files.store import parse_results


def register(sub: Any) -> None:
    rec = sub.add_parser("recover", **parser_args(
        "write a (partial) results JSON from a run's journal",
        "Write a pytest-benchmark JSON, marked partial, from the journal of a run that did not finish.",
        exit_codes("written", unusable="the journal is unusable, or the output would destroy an input (nothing written)")))
    rec.add_argument("journal", metavar=f"JOURNAL{JOURNAL_SUFFIX}")
    add_output(rec, "OUT.json", "default: <journal stem>.recovered.json beside it")
    add_force(rec, "OUT.json")
    rec.set_defaults(handler=run_recover)


def _default_output(journal: Path) -> Path:
    name = journal.name[: -len(JOURNAL_SUFFIX)] if journal.name.endswith(JOURNAL_SUFFIX) else journal.stem
    return journal.with_name(name + ".recovered.json")


def run_recover(args: argparse.Namespace) -> int:
    contents = read_journal(args.journal)
    document = recover_document(contents)
    out = Path(args.output) if args.output else _default_output(Path(args.journal))
    guard([out], [args.journal], args.force)  # an earlier (partial) recovery may be replaced; an input, a journal, a complete run not
    results = parse_results(document, str(out))  # never write a file the readers would refuse
    atomic_write_text(out, json.dumps(document, indent=4, default=str) + "\n")
    state = "the run ended" if contents.ended else "the run did not end"
    print(
        f"recovered {out}: {len(results.timed)} timed, {len(results.failures)} failed, {len(results.skips)} skipped "
        f"of {len(contents.collected) or '?'} collected items ({state}; {len(contents.missing)} missing"
        + (f", {contents.torn_lines} torn line ignored" if contents.torn_lines else "")
        + ")"
    )
    for line in partial_lines(results):
        print(line)
    return 0
