"""Every progress line of a run, from one place: counts that only advance, an ETA only from
measured costs, and lines that never land inside pytest's own.

Contract: ``ProgressBoard(write).phase(key, label, unit)`` is one ``PhaseLine`` per key, updated
from any thread, written only from the main thread as ``[tlbench] <label>: <done>/<total> <unit>,
...``.  ``terminal_writer(config)``; ``LoopLine`` is a device phase's line.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable, ContextManager

import pytest


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class PhaseLine:
    def __init__(self, board: "ProgressBoard", label: str, unit: str) -> None:
        self.board, self.label, self.unit = board, label, unit
        self.done = self.total = 0
        self.detail = ""
        self.eta_s: float | None = None
        self.eta_at = 0.0  # when eta_s was given: it counts down from there
        self.started: float | None = None
        self.active = False
        self.written_at: float | None = None  # the last line written (None: none this run of the phase)
        self.tenth = -1
        self.pending_end = False

    def update(self, done: int, total: int, detail: str | None = None, eta_s: float | None = None) -> None:
        with self.board.lock:
            now = self.board.clock()
            self._open(now)
            self.done = max(self.done, int(done))
            self.total = max(int(total), self.done)
            if detail is not None:
                self.detail = detail
            self.eta_s, self.eta_at = (max(0.0, eta_s), now) if eta_s is not None else (None, now)
        self.board.flush()

    def count(self, done: int, total: int) -> None:
        """``update`` for a plain count that ends when it is whole (a pool's kernels)."""
        self.update(done, total)
        if done >= total:
            self.end()

    def note(self, detail: str, elapsed_s: float | None = None) -> None:
        with self.board.lock:
            now = self.board.clock()
            self._open(now)
            if elapsed_s is not None:  # the caller's own clock: what it reports began before the line
                self.started = now - max(0.0, elapsed_s)
            self.detail = detail
        self.board.flush()

    def end(self, detail: str = "") -> None:
        with self.board.lock:
            if not self.active:
                return
            self.active = False
            self.detail = detail or "done"
            self.eta_s = None
            self.pending_end = self.written_at is not None
        self.board.flush()

    def _open(self, now: float) -> None:
        if not self.active:
            self.active, self.started, self.written_at, self.tenth, self.pending_end = True, now, None, -1, False
            self.eta_s = None

    def text(self, now: float) -> str:
        elapsed = now - (self.started if self.started is not None else now)
        count = (f"{self.done}/{self.total} {self.unit}" if self.unit else f"{self.done}/{self.total}") if self.total else ""
        parts = [p for p in (count, self.detail) if p] + [f"elapsed {_clock(elapsed)}"]
        if self.eta_s is not None and self.active:
            parts.append(f"ETA {_clock(max(0.0, self.eta_s - (now - self.eta_at)))}")
        return f"[tlbench] {self.label}: " + ", ".join(parts)

    def due(self, now: float) -> bool:
        """Whether a line is due now (called with the board's lock held)."""
        if self.pending_end:
            return True
        if not self.active or self.started is None:
            return False
        if self.written_at is None:
            return now - self.started >= self.board.first_s
        since = now - self.written_at
        tenth = (10 * self.done) // self.total if self.total else -1
        return since >= self.board.heartbeat_s or (tenth > self.tenth and since >= self.board.gap_s)

    def written(self, now: float) -> None:
        self.written_at = now
        self.tenth = (10 * self.done) // self.total if self.total else -1
        self.pending_end = False


class ProgressBoard:
    def __init__(self, write: Callable[[str], None] | None, clock: Callable[[], float] = time.monotonic,
                 is_main: Callable[[], bool] = _on_main_thread, first_s: float = 2.0, gap_s: float = 5.0,
                 heartbeat_s: float = 10.0) -> None:
        self._write = write
        self.clock, self._is_main = clock, is_main
        self.first_s, self.gap_s, self.heartbeat_s = first_s, gap_s, heartbeat_s
        self.lock = threading.RLock()
        self.lines: dict[str, PhaseLine] = {}

    def phase(self, key: str, label: str, unit: str = "") -> PhaseLine:
        with self.lock:
            return self.lines.setdefault(key, PhaseLine(self, label, unit))

    def flush(self) -> None:
        if self._write is None or not self._is_main():
            return
        with self.lock:
            now = self.clock()
            due = [line for line in self.lines.values() if line.due(now)]
            texts = [line.text(now) for line in due]
            for line in due:
                line.written(now)
        for text in texts:
            self._write(text)

    tick = flush  # the main thread calls it while it waits and after each item


class TerminalLines:
    """``write(line)`` through pytest's terminal reporter with capture suspended (else stderr), on a
    line of its own; the file name pytest's next result belongs to is written again before it."""

    def __init__(self, config: Any) -> None:
        self.config = config
        capman = config.pluginmanager.getplugin("capturemanager")
        self.suspend: Callable[[], ContextManager] = capman.global_and_fixture_disabled if capman is not None else nullcontext
        self.owed: Any = None  # the prefix pytest had written before our lines, to write again

    def __call__(self, line: str) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        with self.suspend():
            if reporter is None:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
                return
            prefix = reporter.currentfspath
            if isinstance(prefix, (str, os.PathLike)) and prefix:
                self.owed = prefix
            writer = getattr(reporter, "_tw", None)  # pytest's own "collecting ..." leaves its line open
            if getattr(writer, "width_of_current_line", 0):
                writer.line()
            reporter.write_line(line)
            reporter.flush()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: Any) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        prefix, self.owed = self.owed, None
        if reporter is None or prefix is None or reporter.currentfspath is not None:
            return
        reporter.ensure_newline()
        reporter.write(prefix if isinstance(prefix, str) else os.path.relpath(Path(prefix), reporter.startpath) + " ")
        reporter.currentfspath = prefix


def terminal_writer(config: Any) -> TerminalLines | None:
    if hasattr(config, "workerinput"):
        return None
    lines = TerminalLines(config)
    config.pluginmanager.register(lines, "tlbench-progress-lines")
    return lines


class LoopLine:
    """The device loop's reports (``rounds.LoopProgress``, one sequence per ``measure_items`` call)
    as one ``PhaseLine`` for a backend's whole phase: items prepared plus batches taken, later
    calls' items counted at the current call's units per item.  No ETA: rounds end on a criterion."""

    def __init__(self, line: PhaseLine, items_total: Callable[[], int]) -> None:
        self.line = line
        self.items_total = items_total
        self._done_before = 0  # units of the calls already finished
        self._items_before = 0
        self._last: Any = None

    def __call__(self, report: Any) -> None:
        last = self._last
        if last is not None and (last.finished or report.done < last.done):  # a new call of the phase
            self._done_before += last.done
            self._items_before += last.items
        self._last = report
        per_item = report.total / report.items if report.items else 1 + report.min_rounds
        later = max(0, self.items_total() - self._items_before - report.items)
        done = self._done_before + report.done
        total = done + (report.total - report.done) + int(round(later * per_item))
        where = f"round {report.round} (at least {report.min_rounds})" if report.round else "preparing (compile, check)"
        self.line.update(done, total, f"{self.items_total()} items, {where}")
        if report.finished and later == 0:
            self.line.end()
