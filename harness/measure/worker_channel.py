"""One worker process and the channel to it: start it, wait for its messages, end it, read its last words.

Contract: a ``WorkerChannel`` holds at most one process at a time (harness/measure/worker_session.py
owns the policy: restarts, limits, what a death means for an item).
- ``spawn(log, env, init)`` starts ``python -m tlbench.harness.measure.worker_main FD`` with its
  stdout and stderr in the file ``log``, its environment ``env``, and sends ``init`` as its first
  message.  A process already held is the caller's to ``kill`` first.
- ``started``: a process was spawned and not yet killed; ``alive``: it is running; ``pid``: its
  pid (None: none held); ``log``: the file it writes to.
- ``send(message)`` sends to the process held (the socket's own ``OSError`` when it is gone).
- ``receive(wanted, limit_s, on_other, tick)``: messages (harness/measure/worker_messages.py) until
  one of a type in ``wanted``, which it returns.  Every other message goes to ``on_other(message)``, which may
  return a new limit (seconds from now) that replaces the running one; ``tick()`` (optional) is
  called at least every ``TICK_S`` while waiting.  Raises ``WorkerDied`` when the channel closes
  and ``WorkerTimedOut(limit_s)`` when no wanted message came within the limit.
- ``wait_exit(timeout_s)``: the process's exit status once it has ended within ``timeout_s``
  (None: still running, or none held).  ``exit_account()``: how it ended, in words
  (harness/measure/worker_spec.py::exit_words), and the last lines it printed.
- ``kill()`` ends the process (killed if running, always waited for) and closes the channel; a
  second call does nothing.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable

from .worker_messages import Init
from .worker_spec import exit_words

TICK_S = 1.0  # a wait for the worker wakes this often to call tick (the progress lines that are due)
WORKER_MODULE = "tlbench.harness.measure.worker_main"


class WorkerDied(Exception):
    """The worker's channel closed: the process ended or is ending."""


class WorkerTimedOut(Exception):
    """No wanted message within the limit (``args[0]``: the limit in seconds)."""


class WorkerChannel:
    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._log: Path | None = None

    @property
    def started(self) -> bool:
        return self._proc is not None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def log(self) -> Path | None:
        """The file the process held writes to (None: none spawned yet)."""
        return self._log

    def spawn(self, log: Path, env: dict[str, str], init: Init) -> None:
        parent, child = socket.socketpair()
        self._log = log
        with open(log, "wb") as out:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", WORKER_MODULE, str(child.fileno())],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
            )
        child.close()
        self._conn = Connection(parent.detach())
        self._conn.send(init)

    def send(self, message: Any) -> None:
        if self._conn is None:
            raise BrokenPipeError("no worker process is held")
        self._conn.send(message)

    def receive(self, wanted: type | tuple[type, ...], limit_s: float, on_other: Callable[[Any], float | None],
                tick: Callable[[], Any] | None = None) -> Any:
        if self._conn is None:
            raise WorkerDied()
        deadline = time.monotonic() + limit_s
        while True:
            left = deadline - time.monotonic()
            try:
                ready = self._conn.poll(max(0.0, min(left, TICK_S)))
            except (EOFError, OSError):
                raise WorkerDied() from None
            if tick is not None:
                tick()
            if not ready and left <= TICK_S:
                raise WorkerTimedOut(limit_s)
            if not ready:
                continue
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                raise WorkerDied() from None
            if isinstance(message, wanted):
                return message
            new_limit = on_other(message)
            if new_limit is not None:
                limit_s = new_limit
                deadline = time.monotonic() + limit_s

    def wait_exit(self, timeout_s: float) -> int | None:
        if self._proc is None:
            return None
        try:
            return self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def exit_account(self) -> tuple[str, str]:
        return exit_words(self._proc.poll() if self._proc is not None else None), self._log_tail()

    def _log_tail(self, lines: int = 4, limit: int = 600) -> str:
        try:
            text = self._log.read_text(errors="replace") if self._log else ""
        except OSError:
            return ""
        tail = " | ".join(ln.strip() for ln in text.splitlines()[-lines:] if ln.strip())
        return tail[-limit:]

    def kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        if self._proc is not None:
            self._proc.wait()
        if self._conn is not None:
            self._conn.close()
        self._proc, self._conn = None, None
