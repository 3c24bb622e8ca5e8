"""A run interrupted by the user (Ctrl-C) is not a kernel failure.

Contract: ``InterruptWatch`` (``arm`` / ``disarm``) notes SIGINT in ``seen``; ``Interrupted``;
``is_interrupt(exc)``; ``died_of_interrupt(returncode)``; ``interrupted_outcome(exc, stage, seen)``:
the ``interrupted`` Outcome (never ``failed``), or None when neither ``seen`` nor an interrupt.
"""

from __future__ import annotations

import re
import signal
import threading
from typing import Any

from .outcome import Outcome, interrupted

SIGINT_STATUSES = (-signal.SIGINT, 128 + signal.SIGINT)
_NAMED = re.compile(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception): )*KeyboardInterrupt\b")  # wrappers' "Type: " in front


class Interrupted(Exception):
    """The item's work ended because the run was interrupted; ``str()`` says where."""


class InterruptWatch:
    def __init__(self) -> None:
        self.seen = False
        self._previous: Any = None
        self._armed = False

    def __call__(self) -> bool:
        return self.seen

    def arm(self) -> "InterruptWatch":
        if self._armed or threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if previous in (signal.SIG_IGN, None):
            return self  # this process never sees a Ctrl-C
        self._previous, self._armed = previous, True
        signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        self.seen = True
        previous = self._previous
        if callable(previous):
            previous(signum, frame)
        else:  # SIG_DFL: what Python's own handler does
            raise KeyboardInterrupt

    def disarm(self) -> None:
        if self._armed and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._previous)
            self._armed = False


def is_interrupt(exc: BaseException | None) -> bool:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (KeyboardInterrupt, Interrupted)) or _NAMED.match(str(exc).lstrip()):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def died_of_interrupt(returncode: int | None) -> bool:
    return returncode in SIGINT_STATUSES


def interrupted_outcome(exc: BaseException | None, stage: str, seen: bool) -> Outcome | None:
    if not (seen or is_interrupt(exc)):
        return None
    words = f"{type(exc).__name__}: {exc}".strip() if exc is not None else ""
    return interrupted(stage, f"the run was interrupted (Ctrl-C) during {stage}" + (f"; the {stage} ended with: {words}"[:400] if words else ""))
