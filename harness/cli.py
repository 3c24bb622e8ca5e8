"""The ``tlbench`` console script: the dispatcher of the subcommands in harness/commands/.

Contract: ``build_parser()`` registers every subcommand (one module each under
harness/commands/, each adding its parser with ``register(subparsers)`` and its ``handler``);
``main(argv=None) -> int`` parses ``argv``, runs the handler and returns its exit code:
0 = no regression / done, 1 = regression (compare, nightly) or a partial merge,
2 = unusable input (one line on stderr naming the file and what to do, never a traceback;
bad arguments are argparse's usage error, which lists valid choices), 3 = internal error (a
bug of tlbench: one line naming the file the traceback went to, harness/crash.py), 130 =
interrupted.  Nothing else lives here.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import Sequence

from .commands import (
    baseline, calibrate, check, compare, dashboard, export, history, merge, nightly, recover, report, search_replay,
)
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


def _installed_version() -> str:
    from .. import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tlbench", description="Compare, report and gate tlbench results (pytest-benchmark JSON).",
        epilog="Files are written with -o/--output, folders with --out-dir; the history database is --history DB; a partial "
               "run is accepted with --allow-partial. " + EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"tlbench {_installed_version()}")
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
