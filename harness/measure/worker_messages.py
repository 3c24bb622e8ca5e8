"""Every message between a device worker (worker_main.py) and its ``WorkerSession``, one frozen
dataclass per kind, pickled over a ``Connection`` and matched by type.  Imports nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Init:
    """The first message to a worker: what it needs to build its backend."""
    sys_path: list[str]
    factory: str  # "module:qualname"
    options: dict[str, Any]
    warm_up: str | None = None  # "module:function": the device runtime's warm-up, in a thread of its own
    compile_warm_up: bool = False  # run the backend's warm_up_compile() before Ready


@dataclass(frozen=True)
class Ready:
    """The worker's backend is built and its device runtime started."""
    pid: int
    device_info: dict[str, Any]
    worker_facts: dict[str, Any] | None
    compile_warm_up_s: float | None  # None: no compile warm-up ran, or it failed


@dataclass(frozen=True)
class Prefetch:
    """Warm these cases' compiles in the background (no answer)."""
    cases: list[Any]


@dataclass(frozen=True)
class Pin:
    """Move the worker onto ``cpus`` and its build children onto ``build_cpus`` (no answer)."""
    cpus: list[int]
    build_cpus: list[int]


@dataclass(frozen=True)
class ItemRequest:
    """A request about ``item`` (a list of items for ``CompileItems``), answered with ``Done``."""
    item: Any
    policy: Any
    compile_rounds: int
    seed: int


class Setup(ItemRequest):
    """The untimed first compile of the item's case; answer: seconds."""


class RunItem(ItemRequest):
    """The whole item through runner.run_item; answer: an Outcome."""


class CompileItems(ItemRequest):
    """Compile items timed round-robin (``item`` is the list); answer: one Outcome per item."""


class Prepare(ItemRequest):
    """DeviceSession.prepare in the worker; answer: Prepared or an Outcome."""


@dataclass(frozen=True)
class Sample:
    """DeviceSession.sample of a prepared item; answer: Batch or Raised."""
    item: Any
    k: int


@dataclass(frozen=True)
class EndPhase:
    """Drop the device phase's timers and inputs (no answer)."""


@dataclass(frozen=True)
class Close:
    """End the worker."""


@dataclass(frozen=True)
class Stage:
    """The worker enters backend stage ``name`` (``background_compiles`` still pending)."""
    name: str
    background_compiles: int


@dataclass(frozen=True)
class Busy:
    """A stage has run ``seconds`` in the suite code ``where`` (harness/measure/busy_watch.py)."""
    stage: str
    where: str
    seconds: float


@dataclass(frozen=True)
class Progress:
    """Timed compile rounds of a CompileItems request: done of total, the rounds' ETA."""
    done: int
    total: int
    eta_s: float | None = None
    detail: str = ""


@dataclass(frozen=True)
class Raised:
    """A sample request's failure: the stage, the exception's words and its traceback."""
    stage: str
    words: str
    traceback: str = ""


@dataclass(frozen=True)
class Done:
    """A request's answer; ``fault``: the device context may be poisoned, the worker exits."""
    answer: Any
    fault: bool
