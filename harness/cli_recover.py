"""``tlbench recover JOURNAL``: a results file from the journal of a run that did not finish.

Contract: ``add_parser(subparsers)`` adds the subcommand; ``run(args) -> int`` reads the
journal (harness/results/journal.py), writes a pytest-benchmark JSON (atomically) that
``pytest-benchmark compare`` and ``tlbench compare`` read, validates it with the results
store, prints what it holds and returns 0.  Its ``tlbench.partial`` says the run did not
end (or which collected items are missing).  ``partial_lines(results)`` is what
``tlbench compare`` prints about a partial input.  Unusable input raises ``JournalError`` /
``ResultsError`` (one line; exit 2 in cli.py); an output that is the journal itself, another
journal or a complete results file is refused unless ``--force`` (``OutputRefused``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tlbench.harness.commands.outputs import guard
from tlbench.harness.results.journal import JOURNAL_SUFFIX, atomic_write_text, read_journal, recover_document
from tlbench.harness.results.store import Results, parse_results


def add_parser(sub: Any) -> None:
    rec = sub.add_parser("recover", help="write a (partial) results JSON from a run's journal",
                         description="Exit 0: written; 2: the journal is unusable.")
    rec.add_argument("journal", metavar=f"JOURNAL{JOURNAL_SUFFIX}")
    rec.add_argument("-o", "--output", metavar="OUT.json", help="default: <journal stem>.recovered.json beside it")
    rec.add_argument("--force", action="store_true",
                     help="write OUT.json even over the journal itself or a complete results file (default: refused)")


def _default_output(journal: Path) -> Path:
    name = journal.name[: -len(JOURNAL_SUFFIX)] if journal.name.endswith(JOURNAL_SUFFIX) else journal.stem
    return journal.with_name(name + ".recovered.json")


def run(args: Any) -> int:
    contents = read_journal(args.journal)
    document = recover_document(contents)
    out = Path(args.output) if args.output else _default_output(Path(args.journal))
    guard([out], [args.journal], getattr(args, "force", False))  # an earlier (partial) recovery may be replaced
    results = parse_results(document, str(out))  # never write a file the readers would refuse
    atomic_write_text(out, json.dumps(document, indent=4, default=str) + "\n")
    state = "the run ended" if contents.ended else "the run did not end"
    print(
        f"recovered {out}: {len(results.records)} timed, {len(results.failed)} failed, {len(results.skipped)} skipped "
        f"of {len(contents.collected) or '?'} collected items ({state}; {len(contents.missing)} missing"
        + (f", {contents.torn_lines} torn line ignored" if contents.torn_lines else "")
        + ")"
    )
    for line in partial_lines(results):
        print(line)
    return 0


def partial_lines(results: Results) -> list[str]:
    partial = (results.document.get("tlbench") or {}).get("partial")
    if not partial:
        return []
    missing = partial.get("missing") or []
    shown = ", ".join(missing[:5]) + (f" (+{len(missing) - 5} more)" if len(missing) > 5 else "")
    if partial.get("reasons"):  # a merge of shards with some missing (harness/results/shard_merge.py)
        return [f"note: {results.name} is PARTIAL: {'; '.join(map(str, partial['reasons']))}" + (f"; missing: {shown}" if missing else "")]
    ended = "ended" if partial.get("run_ended") else "did not end"
    return [
        f"note: {results.name} is PARTIAL, recovered from {partial.get('journal')}: "
        f"{partial.get('items_in_journal')} of {partial.get('items_collected') or '?'} items; the run {ended}"
        + (f"; missing: {shown}" if missing else "")
    ]
