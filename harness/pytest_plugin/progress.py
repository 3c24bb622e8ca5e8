"""A progress line for the long phases of a run: the compile prefetch and device timing.

Contract: ``Progress(label, stream, live, suspend)`` counts ``done / total`` with the elapsed time and
an ETA (from the mean time per finished unit).  ``live=True`` (a terminal, not an xdist
worker: ``live_allowed``) draws one rich line that redraws in place; otherwise it writes a
plain line at the start, at every further tenth of the total and at the end, so a log or CI
output stays short (at most 11 lines per batch: when an estimated total moves, only a tenth
beyond the furthest one written gives a line).  ``update(done, total)`` may be called from any thread; ``close()`` ends
the line.  ``suspend`` (pytest's ``capturemanager.global_and_fixture_disabled``) is entered
around every write, so the line reaches the terminal while a test's output is captured;
``live`` (default: ``live_allowed(sys.stdout)``, decided inside it at the first update) and
``stream`` (default: stdout for the live line, stderr for plain lines, so pytest's own stdout
lines stay whole); plain lines enter it only to write a line (device threads update once
per batch).  A later batch (a larger total) starts a new line; ``detail`` (e.g. "round 2/5")
goes before the count.  ``PhaseProgress(progress, items_total)`` turns the device measurement
loop's reports (``rounds.LoopProgress``, one sequence per call: the phase may be measured in
several calls, e.g. per problem) into one line for the whole phase: units are items prepared
plus batches taken, and items of calls not yet started are counted at the current call's
units per item.  Nothing here measures: it only reports what the caller counted.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import nullcontext
from typing import Callable, ContextManager, TextIO


def live_allowed(stream: TextIO | None = None) -> bool:
    """A live line only on a terminal and never in an xdist worker (its output is captured)."""
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("PYTEST_XDIST_WORKER")


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        live: bool | None = None,
        suspend: Callable[[], ContextManager] | None = None,
    ) -> None:
        self.label = label
        self._stream = stream
        self._live = live
        self.suspend = suspend or nullcontext
        self.start: float | None = None  # the first update starts the clock
        self._lock = threading.Lock()
        self._last_tenth = -1
        self._total = 0
        self._closed = False
        self._rich = None

    def text(self, done: int, total: int, detail: str = "") -> str:
        if self.start is None:
            self.start = time.perf_counter()
        elapsed = time.perf_counter() - self.start
        eta = "?" if done == 0 else _clock(elapsed / done * (total - done))
        detail = f"{detail}, " if detail else ""
        return f"[tlbench] {self.label}: {detail}{done}/{total}, elapsed {_clock(elapsed)}, ETA {eta}"

    def update(self, done: int, total: int, detail: str = "") -> None:
        with self._lock:
            if total <= 0 or (self._closed and total <= self._total):
                return
            if self._closed:  # a new batch: a new line
                self._closed, self._last_tenth = False, -1
            self._total = total
            line = self.text(done, total, detail)
            if self._live is None:  # decided once, where the real stdout is visible
                with self.suspend():
                    self._live = live_allowed(self._stream or sys.stdout)
            if self._live:
                with self.suspend():
                    self._draw(line, self._stream or sys.stdout)
            else:  # plain lines: capture is suspended only for a line that is written
                tenth = (10 * done) // total  # a total that grows or shrinks mid-way never re-prints a tenth
                if tenth > self._last_tenth or done == total:
                    self._last_tenth = tenth
                    with self.suspend():
                        self._write_plain(line)
            if done >= total:
                with self.suspend():
                    self._close_locked()

    def _write_plain(self, line: str) -> None:
        stream = self._stream or sys.stderr
        stream.write(line + "\n")
        stream.flush()

    def _draw(self, line: str, stream: TextIO) -> None:
        if self._rich is None:
            from rich.console import Console
            from rich.live import Live
            from rich.text import Text

            self._text = Text
            self._rich = Live(
                Text(line), console=Console(file=stream), auto_refresh=False, transient=False, redirect_stdout=False, redirect_stderr=False
            )
            self._rich.start()
        self._rich.update(self._text(line), refresh=True)

    def _close_locked(self) -> None:
        if self._rich is not None:
            self._rich.stop()
            self._rich = None
        self._closed = True

    def close(self) -> None:
        with self._lock, self.suspend():
            if not self._closed:
                self._close_locked()


class PhaseProgress:
    """One progress line over every measurement-loop call of the device phase."""

    def __init__(self, progress: Progress, items_total: Callable[[], int]) -> None:
        self.progress = progress
        self.items_total = items_total
        self._done_before = 0  # units of the calls already finished
        self._items_before = 0
        self._last = None

    def __call__(self, report) -> None:
        last = self._last
        if last is not None and (last.finished or report.done < last.done):  # a new call of the phase
            self._done_before += last.done
            self._items_before += last.items
        self._last = report
        per_item = report.total / report.items if report.items else 1 + report.min_rounds
        later = max(0, self.items_total() - self._items_before - report.items)
        done = self._done_before + report.done
        total = done + (report.total - report.done) + int(round(later * per_item))
        if not (report.finished and later == 0):
            total = max(total, done + 1)  # the line closes only when the phase's last call ends
        where = f"round {report.round} (at least {report.min_rounds})" if report.round else "preparing (compile, check)"
        self.progress.update(done, total, f"{self.items_total()} items, {where}")
