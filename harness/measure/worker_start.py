"""What a worker process does before it answers ``ready`` (worker_main.py); nothing here measures.

Contract: ``start_runtime_warm_up(ref)`` runs ``"module:function"`` on a thread (or None);
``warm_device(backend)``: ``device_info()`` as plain data ({} on failure);
``worker_facts(backend)``: ``worker_facts()`` as plain data or None; ``warm_up_compile(backend)``:
its wall seconds, or None.  Each failure is left to the first item that meets it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from importlib import import_module
from typing import Any

from ..core import trace
from ..core.record import plain_data


def warm_device(backend: Any) -> dict[str, Any]:
    """The backend's ``device_info()`` as plain data (starts the runtime early); {} on failure."""
    try:
        return plain_data(backend.device_info() or {})
    except Exception:  # noqa: BLE001 - the first device stage reports it with its item
        return {}


def worker_facts(backend: Any) -> dict[str, Any] | None:
    """The backend's ``worker_facts()`` as plain data (for ``from_worker_facts``), or None."""
    facts = getattr(backend, "worker_facts", None)
    try:
        return plain_data(facts()) if callable(facts) else None
    except Exception:  # noqa: BLE001 - the controller falls back to loading the backend itself
        return None


def warm_up_compile(backend: Any) -> float | None:
    """The backend's ``warm_up_compile()``: wall seconds, or None (none, or it failed)."""
    warm = getattr(backend, "warm_up_compile", None)
    if not callable(warm):
        return None
    start = time.perf_counter()
    try:
        warm()
    except Exception:  # noqa: BLE001 - the setup's compile of an item meets what this missed
        return None
    trace.mark("worker compile warm", role="worker")
    return time.perf_counter() - start


def start_runtime_warm_up(ref: str | None) -> threading.Thread | None:
    if not ref:
        return None
    module, _, name = ref.partition(":")

    def run() -> None:
        with contextlib.suppress(Exception):  # the first device stage reports it with its item
            getattr(import_module(module), name)()
        trace.mark("worker runtime warm", role="worker")

    thread = threading.Thread(target=run, name="tlbench-warm-up", daemon=True)
    thread.start()
    return thread
