"""The preflight at collection: a suite's own code checked before any of its items compiles.

Contract: ``run_preflight(items, state, given_gib)`` runs the family's preflight once per (problem,
dialect) and keeps in ``state.items`` the failing items' lines (``ItemRunner`` fails them at once),
every finding once and the problems checked at size.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..core.cases import Case, VendorCase
from ..core.record import BenchItem

GIB = 1 << 30
DEFAULT_DEVICE_GIB = 80  # where no device is here (tlbench check on a CPU box): an H100's memory


def device_memory(state: Any, backend: str, given_gib: float | None) -> int:
    """The given GiB, else the device's ``memory_bytes``, else ``DEFAULT_DEVICE_GIB``."""
    if given_gib is not None:
        return int(given_gib * GIB)
    try:
        reported = (state.registry.get(backend).device_info() or {}).get("memory_bytes")
    except Exception:  # noqa: BLE001 - a backend that cannot say: the default
        reported = None
    return int(reported) if isinstance(reported, (int, float)) and reported > 0 else DEFAULT_DEVICE_GIB * GIB


def _family_preflight(problem: Any, dialect: str, device_memory: int) -> tuple[list[str], list[str]]:
    """The family's optional ``preflight``: (failures, notes), each one line naming the callable,
    the problem and the fix."""
    ask = getattr(problem.family, "preflight", None)
    failures, notes = ask(problem, dialect, device_memory=device_memory) if callable(ask) else ([], [])
    return list(failures), list(notes)


def run_preflight(items: Sequence[BenchItem], state: Any, given_gib: float | None = None) -> None:
    answers: dict[tuple[Any, str], tuple[list[str], list[str]]] = {}
    memory: dict[str, int] = {}
    for item in items:
        dialect = state.registry.dialect(item.backend) if isinstance(item.case, (Case, VendorCase)) else None
        if dialect is None:
            continue
        key = (item.case.problem, dialect)
        if key not in answers:
            if item.backend not in memory:
                memory[item.backend] = device_memory(state, item.backend, given_gib)
            answers[key] = _family_preflight(item.case.problem, dialect, memory[item.backend])
            if getattr(item.case.problem.family, "has_body", lambda _: True)(dialect):  # a family with no body here checks nothing
                state.items.preflight_sized[f"{item.case.problem.problem_id} ({item.backend})"] = memory[item.backend]
            for line in [*answers[key][0], *answers[key][1]]:
                if line not in state.items.preflight_lines:
                    state.items.preflight_lines.append(line)
        failures = answers[key][0]
        if failures:
            more = f" (+{len(failures) - 1} more preflight finding(s): `tlbench check` lists them)" \
                if len(failures) > 1 else ""
            state.items.preflight_failed[item.item_id] = failures[0] + more
            ask = getattr(item.case.problem.family, "preflight_traceback", None)
            traceback = ask(dialect, failures[0]) if callable(ask) else ""
            if traceback:
                state.items.preflight_tracebacks[item.item_id] = traceback
