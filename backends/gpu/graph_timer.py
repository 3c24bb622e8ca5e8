"""Kernel time per launch from CUDA-graph replays: K launches captured in one graph, time / K.

Contract: ``GraphTimer(fn, flush, telemetry, device=CudaGraphDevice())`` is a ``DeviceTimer``
(``method`` ``"cuda-graph"``): K x (flush, call) captured in one graph and, with the flush on, K
flushes alone in a second; sample i is ``(pairs_i - flushes_i) / K``.  Where capture fails,
``method`` becomes ``cuda-event`` and ``notes`` say why.  ``device`` is the only CUDA-touching
part (tests pass a fake).
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Callable, Protocol, Sequence

METHOD_GRAPH = "cuda-graph"
TARGET_REPLAY_S = 2e-3
MIN_LAUNCHES = 2
MAX_LAUNCHES = 256
ESTIMATE_CALLS = 3
WARM_UP_CALLS = 3
SPACER_CYCLES = 100_000  # ~50 us at the H200's 1980 MHz: longer than enqueueing one replay


def launches_for(estimate_s: float) -> int:
    """K: launches for a replay of about ``TARGET_REPLAY_S`` (``estimate_s``: flush + call)."""
    if not estimate_s > 0 or not math.isfinite(estimate_s):
        return MAX_LAUNCHES
    return max(MIN_LAUNCHES, min(MAX_LAUNCHES, math.ceil(TARGET_REPLAY_S / estimate_s)))


def per_launch(pairs_s: Sequence[float], flushes_s: Sequence[float] | None, launches: int) -> list[float]:
    """Per-launch seconds of each replay: (pairs - flushes) / K, or pairs / K without a flush graph."""
    if flushes_s is None:
        return [p / launches for p in pairs_s]
    if len(flushes_s) != len(pairs_s):
        raise ValueError(f"{len(pairs_s)} replays of the call graph but {len(flushes_s)} of the flush graph")
    return [(p - f) / launches for p, f in zip(pairs_s, flushes_s)]


class GraphDevice(Protocol):
    """What the timer needs from CUDA (``CudaGraphDevice``) or from a test's fake."""

    def event_seconds(self, body: Callable[[], None]) -> float: ...
    def capture(self, body: Callable[[], None], repeat: int, warm_up: int) -> Any: ...
    def replay_seconds(self, graphs: Sequence[Any], rounds: int) -> list[list[float]]: ...
    def event_batch(self, flush: Callable[[], None], fn: Callable[[], None], k: int) -> list[float]: ...


class CudaGraphDevice:
    """``torch.cuda`` graphs and events on the current device."""

    def __init__(self) -> None:
        import torch

        self._torch = torch
        self.stream = torch.cuda.Stream()

    def event_seconds(self, body: Callable[[], None]) -> float:
        torch = self._torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SPACER_CYCLES)
        start.record()
        body()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e-3

    def capture(self, body: Callable[[], None], repeat: int, warm_up: int) -> Any:
        """A graph of ``repeat`` x ``body``, after ``warm_up`` calls on the capture stream."""
        torch = self._torch
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            for _ in range(warm_up):
                body()
        torch.cuda.current_stream().wait_stream(self.stream)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        # thread_local: another thread's CUDA call (a compile in the pool) does not void the capture
        with torch.cuda.graph(graph, stream=self.stream, capture_error_mode="thread_local"):
            for _ in range(repeat):
                body()
        torch.cuda.synchronize()
        return graph

    def replay_seconds(self, graphs: Sequence[Any], rounds: int) -> list[list[float]]:
        """Seconds of each replay: ``rounds`` lists, one time per graph, graphs interleaved."""
        torch = self._torch
        marks = []
        for _ in range(rounds):
            row = []
            for graph in graphs:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda._sleep(SPACER_CYCLES)
                start.record()
                graph.replay()
                end.record()
                row.append((start, end))
            marks.append(row)
        torch.cuda.synchronize()
        return [[s.elapsed_time(e) * 1e-3 for s, e in row] for row in marks]

    def event_batch(self, flush: Callable[[], None], fn: Callable[[], None], k: int) -> list[float]:
        from .timing import event_batch

        return event_batch(flush, fn, k)


class GraphTimer:
    def __init__(self, fn: Callable[[], None], flush: Any, telemetry: Any = None,
                 device: GraphDevice | None = None) -> None:
        self.fn, self.flush, self._telemetry = fn, flush, telemetry
        self.l2_flush_bytes = flush.nbytes
        self.notes: list[str] = []
        self.method = METHOD_GRAPH
        self.launches = 0
        self._graphs: list[Any] = []
        self._device = device if device is not None else CudaGraphDevice()
        try:
            self._set_up()
        except Exception as exc:  # capture refused: the call is not capturable here
            self._graphs = []
            self.method = "cuda-event"
            self.notes.append(f"CUDA graph capture failed ({type(exc).__name__}: {exc}); fell back to CUDA events")

    def _pair(self) -> None:
        self.flush()
        self.fn()

    def _set_up(self) -> None:
        device = self._device
        device.event_seconds(self._pair)  # untimed: first use
        estimate = statistics.median(device.event_seconds(self._pair) for _ in range(ESTIMATE_CALLS))
        self.launches = launches_for(estimate)
        flushed = bool(self.flush.nbytes)
        self._graphs = [device.capture(self._pair if flushed else self.fn, self.launches, WARM_UP_CALLS)]
        if flushed:
            self._graphs.append(device.capture(self.flush, self.launches, 1))
        self.notes.append(
            f"CUDA graph of K={self.launches} launches per replay (one flush + call {estimate * 1e6:.4g} us by events; "
            f"K for a replay of about {TARGET_REPLAY_S * 1e3:g} ms, {MIN_LAUNCHES}..{MAX_LAUNCHES}); "
            + ("each launch after the L2 flush, a graph of K flushes alone subtracted" if flushed else "no L2 flush")
        )

    def batch(self, k: int) -> list[float]:
        if not self._graphs:  # capture failed: the events timer's own batch
            return self._device.event_batch(self.flush, self.fn, k)
        rows = self._device.replay_seconds(self._graphs, k)
        pairs = [row[0] for row in rows]
        flushes = [row[1] for row in rows] if len(self._graphs) > 1 else None
        return per_launch(pairs, flushes, self.launches)

    def telemetry(self) -> dict[str, Any] | None:
        return self._telemetry.read() if self._telemetry is not None else None
