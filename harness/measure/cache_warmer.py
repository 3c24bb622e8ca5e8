"""Cold builds of a device phase's kernels in child processes, so the device process only loads them
(builds on threads of one process do not overlap).

Contract: ``CacheWarmer(factory, options, sys_path, processes)``: ``warm(case) -> Future`` (None, or
a failure's words: a hint only), ``pin(cpus)``, ``close()``.  ``processes(cpus)``: one per CPU from
``MIN_CPUS``, else none; ``$TLBENCH_BUILD_PROCESSES`` overrides (ValueError unless a whole number).
``warmer_for``: None without a factory or processes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .cpu_plan import pin

MIN_CPUS = 4
ENV = "TLBENCH_BUILD_PROCESSES"


def processes(cpus: int, environ: Mapping[str, str] | None = None) -> int:
    value = (os.environ if environ is None else environ).get(ENV)
    if value is not None and value.strip() != "":
        if not value.strip().isdigit():
            raise ValueError(f"{ENV}={value!r}: give the number of build processes, a whole number >= 0 (0: none)")
        return int(value)
    return cpus if cpus >= MIN_CPUS else 0


def _build(sys_path: Sequence[str], factory: str, options: Mapping[str, Any], case: Any) -> str | None:
    from ..core.backend_api import backend_from_ref

    for path in reversed(list(sys_path)):
        if path not in sys.path:
            sys.path.insert(0, path)
    backend = backend_from_ref(factory, options)
    try:
        backend.compile(case, False)
    except Exception as exc:  # noqa: BLE001 - a hint only: the device process meets it again
        return f"{type(exc).__name__}: {exc}"
    return None


def _pin_child(cpus: Any) -> None:
    if cpus:
        pin(cpus)


def warmer_for(factory: str | None, options: Mapping[str, Any], processes: int) -> "CacheWarmer | None":
    if not factory or processes <= 0:
        return None
    return CacheWarmer(factory, dict(options), list(sys.path), processes)


@dataclass
class CacheWarmer:
    factory: str
    options: Mapping[str, Any]
    sys_path: Sequence[str]
    processes: int
    cpus: frozenset[int] | None = None  # where the children run (None: where this process does)
    _executor: ProcessPoolExecutor | None = field(default=None, repr=False)

    def warm(self, case: Any) -> Future:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_pin_child, initargs=(self.cpus,))
        return self._executor.submit(_build, list(self.sys_path), self.factory, dict(self.options), case)

    def pin(self, cpus: Any) -> None:
        self.cpus = frozenset(cpus)
        if self._executor is not None:
            self._executor.shutdown(wait=False)  # its running children finish their builds pinned below; new ones start pinned
            self._executor = None
        for child in multiprocessing.active_children():
            pin(self.cpus, child.pid or 0)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
