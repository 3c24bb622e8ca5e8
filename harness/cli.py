"""The ``tlbench`` console script: the dispatcher of the subcommands in harness/commands/.

Contract: ``build_parser()`` registers every subcommand (each module's ``register(subparsers)``
sets its ``handler``); ``main(argv=None) -> int`` runs it and returns its exit code: 0 done / no
regression, 1 regression or partial merge, 2 unusable input (one line on stderr, never a
traceback), 3 internal error (harness/crash.py), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import Sequence

from .commands import (baseline, calibrate, check, compare, dashboard, export, history, merge, nightly,
    recover, report, search_replay)
from .commands.common import EXIT_UNUSABLE, UsageProblem
from .commands.gate_options import PartialRun
from .commands.outputs import OutputRefused
from .crash import report_internal_error
from .results.compare.comparison import CompareError
from .results.history.schema import HistoryError
from .results.files.journal import JournalError
from .results.files.store import ResultsError

EXIT_CODES = ("Exit codes: 0 done, or no regression; 1 a regression (compare, nightly), a finding (check) or a partial "
              "merge (merge); 2 unusable input or arguments (one line says what to do); "
              "3 internal error (a bug of tlbench; the file holding the traceback is named); 130 interrupted (Ctrl-C; "
              "nightly: 128 + the signal's number). Every subcommand's --help ends with its own.")
COMMANDS = (compare, report, baseline, nightly, recover, history, export, dashboard, calibrate, merge, check, search_replay)
UNUSABLE = (ResultsError, CompareError, UsageProblem, JournalError, HistoryError, OutputRefused, PartialRun)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tlbench", description="Compare, report and gate tlbench results (pytest-benchmark JSON).",
        epilog="Files are written with -o/--output, folders with --out-dir; the history database is --history DB; a partial "
               "run is accepted with --allow-partial. " + EXIT_CODES)
    from tlbench import __version__

    parser.add_argument("--version", action="version", version=f"tlbench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{compare,report,baseline,nightly,recover,history,export,dashboard,calibrate,merge,check,search-replay}")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except UNUSABLE as exc:
        print(f"tlbench: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except OSError as exc:
        print(f"tlbench: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except sqlite3.Error as exc:  # the history file: read-only, locked, corrupt
        print(f"tlbench: history database: {exc}; check the --history file (writable, not in use, a tlbench history)", file=sys.stderr)
        return EXIT_UNUSABLE
    except KeyboardInterrupt:
        print("tlbench: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug of ours: exit 3, never 1 (a regression) or 2
        return report_internal_error(exc, argv)


if __name__ == "__main__":
    sys.exit(main())
