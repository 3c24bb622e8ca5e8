"""What a device worker is and how long each of its stages may take.

Contract: ``WorkerSpec``; ``Limits`` (seconds per stage, ``for_stage``); ``factory_ref(factory)``
(ValueError for a lambda or local function); ``exit_words(returncode)``; ``WorkerFault``;
``StartAttempts(limit)``: failed starts in a row, ``exhausted`` at ``limit``, ``refusal(backend)``.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..core.cases import MeasurePolicy

STARTUP = "startup"


@dataclass(frozen=True)
class WorkerSpec:
    backend: str
    factory: str  # "module:qualname" of the backend factory
    options: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)  # device pinning (CUDA_VISIBLE_DEVICES ...)
    warm_up: str | None = None  # "module:function": the device runtime's first use, as the worker starts (traits)
    compile_warm_up: bool = False  # a worker that times compile items: the backend's warm_up_compile() before "ready"


@dataclass(frozen=True)
class Limits:
    """Seconds a stage may take; ``item_s`` None: ``EXPECTED_FACTOR`` x the cap, >= ``floor_s``."""

    item_s: float | None = None
    floor_s: float = 120.0
    compile_s: float = 600.0
    startup_s: float = 300.0
    startup_attempts: int = 2  # starts in a row that die or hang before ``ready``: then no more

    EXPECTED_FACTOR = 4.0

    def for_stage(self, stage: str, policy: MeasurePolicy) -> float:
        if stage == STARTUP:
            return self.startup_s
        if stage == "compile":
            return self.compile_s
        if self.item_s is not None:
            return self.item_s
        return max(self.floor_s, self.EXPECTED_FACTOR * policy.max_seconds)


def factory_ref(factory: Any) -> str:
    """``module:qualname`` of an importable factory (a class or a module-level function)."""
    qualname = getattr(factory, "__qualname__", "")
    if not qualname or "<" in qualname:
        raise ValueError(f"backend factory {factory!r} is not importable by name; register a class or a module-level function")
    return f"{factory.__module__}:{qualname}"


def exit_words(returncode: int | None) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"{signal.Signals(-returncode).name} (signal {-returncode})"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


class WorkerFault(RuntimeError):
    """An item's device work failed in the worker; ``remote_traceback``: where ('' for none)."""

    def __init__(self, words: str = "", remote_traceback: str = "") -> None:
        super().__init__(words)
        self.remote_traceback = remote_traceback


@dataclass
class StartAttempts:
    limit: int
    _failures: list[str] = field(default_factory=list)  # why each start since the last ready failed

    def failed(self, words: str) -> None:
        self._failures.append(words)

    def succeeded(self) -> None:
        self._failures.clear()

    @property
    def any_failed(self) -> bool:
        return bool(self._failures)

    @property
    def exhausted(self) -> bool:
        return len(self._failures) >= self.limit

    def refusal(self, backend: str) -> str:
        last = self._failures[-1] if self._failures else "unknown"
        return (f"not started again: the {backend} worker failed to start {len(self._failures)} "
                f"times in a row (last: {last}), so no further worker is started in this session; "
                "fix what stops it (its words above, or run one item with "
                "--tlbench-isolation=inprocess to see the error in this process) and run again")
