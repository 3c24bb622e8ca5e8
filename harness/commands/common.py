"""What every ``tlbench`` subcommand shares: exit codes, the one grammar of options, output.

Contract: ``EXIT_*`` and ``exit_codes(...)``; ``UsageProblem`` (one line on stderr, exit 2); one
spelling of each shared option (``add_*``, ``thresholds``, ``positive``); ``console()`` (never
wraps), ``width()``, ``write_text``, ``print_json``, ``skipped_lines``.  Imports nothing heavy.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Mapping

from ..results.files.fraction_arg import command_fraction

EXIT_OK, EXIT_REGRESSION, EXIT_UNUSABLE = 0, 1, 2
PIPED_WIDTH = 200  # a CI log: no terminal to fit, but lines a person can still read


class UsageProblem(ValueError):
    """A request that cannot be carried out; one line for stderr, exit 2."""


def exit_codes(ok: str, regression: str | None = None, unusable: str = "unusable input (one line on stderr says what to do)") -> str:
    parts = [f"0 {ok}", *([f"1 {regression}"] if regression else []), f"2 {unusable}",
             "3 internal error (a bug of tlbench; the file holding the traceback is named)"]
    return "Exit codes: " + "; ".join(parts) + "."


def parser_args(help_text: str, description: str, codes: str) -> dict[str, str]:
    """Keyword arguments of ``add_parser``: the one-line help, and a description ending with the exit codes."""
    return {"help": help_text, "description": f"{description} {codes}".strip()}


def add_output(parser: argparse.ArgumentParser, metavar: str, help_text: str, required: bool = False) -> None:
    parser.add_argument("-o", "--output", metavar=metavar, required=required, default=None, help=help_text)


def add_out_dir(parser: argparse.ArgumentParser, default: str, help_text: str) -> None:
    parser.add_argument("--out-dir", default=default, metavar="DIR", help=f"{help_text} (default {default})")


def add_history(parser: argparse.ArgumentParser, default: str | None, help_text: str) -> None:
    where = f" (default {default})" if default else ""
    parser.add_argument("--history", default=default, metavar="DB", help=f"{help_text}{where}")


def add_allow_partial(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--allow-partial", action="store_true", help=help_text)


def add_force(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--force", action="store_true",
                        help=f"write {what} even over an input, a journal or an existing results file (default: refused, exit 2)")


def add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true",
                        help=f"print {what} as one JSON document on stdout instead of the table "
                             "(its JSON Schema: harness/results/schema/)")


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


_fraction = command_fraction(0.05)


def _alpha(text: str) -> float:
    value = _fraction(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"alpha {text!r} must be between 0 and 1")
    return value


def _suite_effect(text: str) -> tuple[str, float]:
    suite, sep, value = text.partition("=")
    if not sep or not suite:
        raise argparse.ArgumentTypeError(f"{text!r}: expected SUITE=FRACTION, e.g. stages=0.08")
    return suite, _fraction(value)


def add_thresholds(parser: argparse.ArgumentParser) -> None:
    from ..results.compare import plan_verdicts

    parser.add_argument("--min-effect", type=_fraction, default=0.05, metavar="FRACTION",
                        help="smallest change of the median that counts (default 0.05 = 5 %%)")
    parser.add_argument("--min-effect-for", type=_suite_effect, action="append", default=[], metavar="SUITE=FRACTION",
                        help="per-suite minimum effect, e.g. stages=0.08 for suites/*/test_stages.py (repeatable)")
    parser.add_argument("--alpha", type=_alpha, default=0.05, help="Mann-Whitney U significance level (default 0.05)")
    plan_verdicts.add_options(parser)


def thresholds(args: argparse.Namespace):
    from ..results.compare import plan_verdicts
    from ..results.compare.judgement import Thresholds

    return Thresholds(min_effect=args.min_effect, alpha=args.alpha, min_effect_by_suite=dict(args.min_effect_for),
                      **plan_verdicts.threshold_values(args))


def width() -> int:
    if sys.stdout.isatty():
        return shutil.get_terminal_size((PIPED_WIDTH, 24)).columns
    try:
        return max(int(os.environ.get("COLUMNS", "")), 40)
    except ValueError:
        return PIPED_WIDTH


def console():
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else width(), soft_wrap=True)


def write_text(path: str | Path, text: str) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


def print_json(document: Mapping[str, object]) -> None:
    json.dump(document, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")


def skipped_lines(skipped: list[str] | tuple[str, ...], why: str = "could not be read", shown: int | None = 5) -> list[str]:
    """What a reader of stored rows left out, said once: a count and the first few (all with ``shown=None``)."""
    if not skipped:
        return []
    listed = list(skipped) if shown is None else list(skipped[:shown])
    more = [f"  ... {len(skipped) - len(listed)} more"] if len(skipped) > len(listed) else []
    return [f"note: {len(skipped)} stored row(s) {why} and were left out:", *(f"  {s}" for s in listed), *more]
