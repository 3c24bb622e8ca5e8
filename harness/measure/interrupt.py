"""A run interrupted by the user (Ctrl-C) is not a kernel failure.

Contract: a Ctrl-C in a terminal sends SIGINT to the whole foreground process group: pytest, its workers and
the compiler they run.  The compiler then dies of the signal and its caller reports a failed build, or a
KeyboardInterrupt raised under a compiler callback comes back as another exception (tvm-ffi's
``RuntimeError`` whose words start ``KeyboardInterrupt``).  Such an item is ``interrupted``, never
``failed`` (``interrupted(stage, reason)``, harness/measure/outcome.py): kept out of the results file and the
journal (a resume measures it), and the pytest session ends as interrupted.
- ``InterruptWatch``: ``arm()`` (main thread only) installs a SIGINT handler that notes the signal (``seen``)
  and then does what the handler before it did; ``disarm()`` puts that back.  Nothing is armed where SIGINT is
  ignored.  One instance per process that owns it (the session's state, a worker's ``main``).
- ``Interrupted``: raised where an item's work ends because the run was interrupted.
- ``is_interrupt(exc)``: a KeyboardInterrupt or ``Interrupted``, in its chain, or named as its error.
- ``died_of_interrupt(returncode)``: a child's status says SIGINT ended it (-2, or 130).
- ``interrupted_outcome(exc, stage, seen)``: the ``interrupted`` Outcome for an exception met in ``stage`` when
  it is an interrupt or the process has ``seen`` one, else None.
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
