"""The preflight at collection: a suite's own code checked before any of its items compiles.

Contract: ``run_preflight(items, state)`` asks each (problem, backend) of ``items`` once for
its family's preflight (harness/core/preflight.py; the dialect from the registry) and keeps,
in ``state.preflight_failed``, the one line each failing item fails with (``item_line``), and
in ``state.preflight_lines`` every finding and note once, in order, for the collection
report and ``tlbench check``.  A failing item never reaches the compile or device phase:
``ItemRunner`` fails it with its line at once (harness/pytest_plugin/item_runner.py) and
collection leaves it out of both phases (harness/plugin.py).  Each (problem, dialect) is
asked once per run (the family keeps its own answer, so a second suite of the same kernel
pays nothing).
"""

from __future__ import annotations

from typing import Any, Sequence

from tlbench.harness.core.cases import Case, VendorCase
from tlbench.harness.core.preflight import finding_traceback, item_line, preflight
from tlbench.harness.core.record import BenchItem


def run_preflight(items: Sequence[BenchItem], state: Any) -> None:
    answers: dict[tuple[Any, str], tuple[list[str], list[str]]] = {}
    for item in items:
        if not isinstance(item.case, (Case, VendorCase)):
            continue
        dialect = state.registry.dialect(item.backend)
        if dialect is None:
            continue
        key = (item.case.problem, dialect)
        if key not in answers:
            answers[key] = preflight(item.case.problem, dialect)
            for line in [*answers[key][0], *answers[key][1]]:
                if line not in state.preflight_lines:
                    state.preflight_lines.append(line)
        failures = answers[key][0]
        if failures:
            state.preflight_failed[item.item_id] = item_line(failures)
            traceback = finding_traceback(item.case.problem, dialect, failures[0])
            if traceback:
                state.preflight_tracebacks[item.item_id] = traceback
