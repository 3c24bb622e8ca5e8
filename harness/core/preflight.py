"""What a family's preflight says about a problem, before anything compiles.

Contract: ``preflight(problem, dialect, device_memory) -> (failures, notes)``: the family's optional
``preflight(problem, dialect[, device_memory=bytes])`` (a kernel declared through the generic path checks its
suite's callables on CPU there, and the problem at its real size against the device's memory: None leaves the
default to the family), else nothing.  Each entry is one line that names the callable, the problem and the fix;
``finding_traceback(problem, dialect, line)`` the traceback of the exception behind a failure, where one made it.
``item_line(failures)``: the one line an item fails with (the first finding, and how many more there are).  Nothing
here imports a backend or torch.
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
    """The traceback of the exception behind preflight failure ``line`` (the family's optional
    ``preflight_traceback(dialect, line)``), or ""."""
    ask = getattr(problem.family, "preflight_traceback", None)
    return ask(dialect, line) if callable(ask) else ""


def item_line(failures: Sequence[str]) -> str:
    more = f" (+{len(failures) - 1} more preflight finding(s): `tlbench check` lists them)" if len(failures) > 1 else ""
    return failures[0] + more
