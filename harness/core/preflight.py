"""What a family's preflight says about a problem, before anything compiles.

Contract: ``preflight(problem, dialect, device_memory) -> (failures, notes)`` from the family's optional
``preflight`` (else nothing), each entry one line naming the callable, the problem and the fix;
``finding_traceback`` the traceback behind a failure, or ""; ``item_line(failures)`` the line an item fails with.
"""

from __future__ import annotations

from typing import Any, Sequence


def preflight(problem: Any, dialect: str, device_memory: int | None = None) -> tuple[list[str], list[str]]:
    ask = getattr(problem.family, "preflight", None)
    if not callable(ask):
        return [], []
    failures, notes = ask(problem, dialect) if device_memory is None else ask(problem, dialect, device_memory=device_memory)
    return list(failures), list(notes)


def finding_traceback(problem: Any, dialect: str, line: str) -> str:
    ask = getattr(problem.family, "preflight_traceback", None)
    return ask(dialect, line) if callable(ask) else ""


def item_line(failures: Sequence[str]) -> str:
    more = f" (+{len(failures) - 1} more preflight finding(s): `tlbench check` lists them)" if len(failures) > 1 else ""
    return failures[0] + more
