"""What the ``tlbench`` command does when its own code fails: exit 3, one line, the traceback on disk.

Contract: ``report_internal_error(exc, argv) -> int`` writes the traceback (with the command line
and version) to a new ``tlbench-crash-*.txt`` in the temporary directory, prints one line saying
it is a fault of tlbench and where the traceback is, and returns ``EXIT_INTERNAL`` (3): a gate
never reads a crash as a verdict.
"""

from __future__ import annotations

import sys
import tempfile
import traceback
from typing import Sequence

EXIT_INTERNAL = 3


def _version() -> str:
    try:
        from tlbench import __version__

        return str(__version__)
    except Exception:  # noqa: BLE001 - reporting a crash must not crash
        return "unknown"


def report_internal_error(exc: BaseException, argv: Sequence[str] | None) -> int:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    where = "(could not be written)"
    try:
        with tempfile.NamedTemporaryFile("w", prefix="tlbench-crash-", suffix=".txt", delete=False, encoding="utf-8") as fh:
            fh.write(f"tlbench {_version()}\nargv: {list(argv) if argv is not None else sys.argv[1:]}\n\n{text}")
            where = fh.name
    except OSError:
        pass
    headline = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    print(f"tlbench: internal error (a bug in tlbench, not in your input): {headline}; traceback written to {where}; "
          "please report it with that file", file=sys.stderr)
    return EXIT_INTERNAL
