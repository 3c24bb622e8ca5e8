"""One worker process and the channel to it: start it, wait for its messages, end it, read its last
words.

Contract: ``WorkerChannel`` holds at most one process: ``spawn``, ``send``, ``receive(wanted,
limit_s, on_other, tick)`` (others to ``on_other``, which may return a new limit; raises
``WorkerDied`` / ``WorkerTimedOut``), ``wait_exit``, ``exit_account()``, ``kill()``.
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
        self.log: Path | None = None  # the file the process held writes to

    @property
    def started(self) -> bool:
        return self._proc is not None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def spawn(self, log: Path, env: dict[str, str], init: Init) -> None:
        parent, child = socket.socketpair()
        self.log = log
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
            if not ready:
                if left <= TICK_S:
                    raise WorkerTimedOut(limit_s)
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
        """How the process ended, and the last 4 lines it printed."""
        try:
            text = self.log.read_text(errors="replace") if self.log else ""
        except OSError:
            text = ""
        tail = " | ".join(ln.strip() for ln in text.splitlines()[-4:] if ln.strip())
        return exit_words(self._proc.poll() if self._proc is not None else None), tail[-600:]

    def kill(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
        if self._conn is not None:
            self._conn.close()
        self._proc, self._conn = None, None
