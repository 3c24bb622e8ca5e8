"""The main job's one-off costs, paid outside every timed item.

Contract: ``pay_setup_once(backend, item, wait_idle)`` runs one untimed cold compile of a
compile item's case (a backend's first compile in a process pays for imports, solver start-up
and code generators warming up: 36.7 s for the first Ascend item on the H200), after the
compile pool is idle, and returns its wall seconds.  The plugin calls it before a backend's
first compile item and shows the number as that backend's setup, never as a measurement.  A
compile error here is not reported: the timed item that follows meets it and fails with the
compiler's words.  ``time_once(work)`` does the same for any untimed run (the plugin
passes the worker's ``setup`` request, which runs ``pay_setup_once`` in the backend's
worker process, when items run there).
"""

from __future__ import annotations

import time
from typing import Callable

from tlbench.harness.core.backend_api import Backend, CompileError
from tlbench.harness.core.cases import Case
from tlbench.harness.core.record import BenchItem


def time_once(work: Callable[[], object]) -> float:
    """Wall seconds of one untimed run of ``work`` (its result and errors are not reported)."""
    start = time.perf_counter()
    try:
        work()
    except Exception:  # noqa: BLE001 - the timed item that follows meets the same fault and reports it
        pass
    return time.perf_counter() - start


def pay_setup_once(backend: Backend, item: BenchItem, wait_idle: Callable[[], None]) -> float:
    if not isinstance(item.case, Case) or backend.rejection(item.case) is not None:
        return 0.0
    wait_idle()
    start = time.perf_counter()
    try:
        backend.compile(item.case, cold=True)
    except CompileError:
        pass
    return time.perf_counter() - start
