"""Pieces of a device phase measured on one or more devices, and handed over as they end.

Contract: ``PieceRunner(pieces, devices, measure_piece, background)`` measures each piece once;
``next_done(tick)`` returns one finished piece's (item, outcome) pairs at a time, then None.  A
piece that raises fails (or interrupts) its items.  ``MergedProgress`` folds pieces' progress.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import replace
from typing import Any, Callable, Sequence

from ..core.record import BenchItem
from .device_pieces import Piece
from .interrupt import interrupted_outcome
from .outcome import Outcome, failed

Pairs = list[tuple[BenchItem, Outcome]]
MeasurePiece = Callable[[Piece, int], Pairs]


class PieceRunner:
    def __init__(self, pieces: Sequence[Piece], devices: int, measure_piece: MeasurePiece, background: bool) -> None:
        self._queue = list(pieces)
        self._measure = measure_piece
        self._lock = threading.Lock()
        self._done: queue.Queue[Pairs] = queue.Queue()
        self._left = len(self._queue)  # pieces not yet handed over
        self.devices_used: set[int] = set()
        self._devices, self._background = max(1, devices), background
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        if self._background and not self._threads:
            for device in range(self._devices):
                thread = threading.Thread(target=self._loop, args=(device,), name=f"tlbench-device-{device}", daemon=True)
                self._threads.append(thread)
                thread.start()

    def _take(self) -> Piece | None:
        with self._lock:
            return self._queue.pop(0) if self._queue else None

    def _run(self, piece: Piece, device: int) -> Pairs:
        self.devices_used.add(device)
        try:
            return self._measure(piece, device)
        except BaseException as exc:  # noqa: BLE001 - every item of the piece fails with these words
            gone = interrupted_outcome(exc, "run", False)  # a Ctrl-C: the piece's items are interrupted, not failed
            return [(item, gone or failed("run", f"{type(exc).__name__}: {exc}", exc=exc))
                    for item in piece.items_for(device)]

    def _loop(self, device: int) -> None:
        while (piece := self._take()) is not None:
            self._done.put(self._run(piece, device))

    def next_done(self, tick: Callable[[], None] | None = None) -> Pairs | None:
        """The next finished piece's pairs (``tick()`` every second while waiting), or None."""
        if self._left == 0:
            return None
        self._left -= 1
        if self._threads:
            while True:
                try:
                    return self._done.get(timeout=1.0)
                except queue.Empty:
                    if tick is not None:
                        tick()
        piece = self._take()
        assert piece is not None  # _left counts the queue when nothing runs in the background
        return self._run(piece, 0)

    @property
    def finished(self) -> bool:
        return self._left == 0

    def cancel(self) -> None:
        with self._lock:
            self._left -= len(self._queue)
            self._queue.clear()

    def queue_empty(self) -> bool:
        with self._lock:
            return not self._queue


class MergedProgress:
    """Concurrent pieces' progress as one stream: ``for_device(d)`` is device ``d``'s callback."""

    def __init__(self, report: Callable[[Any], None], queue_empty: Callable[[], bool]) -> None:
        self._report, self._queue_empty = report, queue_empty
        self._lock = threading.Lock()
        self._active: dict[int, Any] = {}
        self._ended_done = 0
        self._ended_items = 0

    def for_device(self, device: int) -> Callable[[Any], None]:
        return lambda progress: self._update(device, progress)

    def _update(self, device: int, progress: Any) -> None:
        with self._lock:
            if progress.finished:
                self._active.pop(device, None)
                self._ended_done += progress.done
                self._ended_items += progress.items
            else:
                self._active[device] = progress
            active = list(self._active.values())
            done = self._ended_done + sum(p.done for p in active)
            self._report(replace(progress, done=done, total=done + sum(p.total - p.done for p in active),
                                 items=self._ended_items + sum(p.items for p in active),
                                 round=min((p.round for p in active), default=progress.round),
                                 finished=not active and self._queue_empty()))
