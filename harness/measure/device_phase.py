"""The device phase of a pytest session: a backend's device items in interleaved rounds, one piece at
a time on each of its devices.

Contract: ``DevicePhase.outcome(item, backend, phase_items, ctx)`` returns the item's ``Outcome``;
the first call for a backend measures its items in pieces (device_pieces.py) through
``make_session(backend, ctx, device)``, each finished piece handed to ``on_chunk(pairs)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..core import trace
from ..core.backend_api import Backend
from ..core.record import BenchItem
from .device_pieces import Piece, plan_pieces
from .device_session import DeviceSession, InProcessSession
from .outcome import Outcome, RunContext
from .piece_runner import MergedProgress, Pairs, PieceRunner
from .runner import run_device_items


def _in_process(backend: Backend, ctx: RunContext, _device: int = 0) -> DeviceSession:
    return InProcessSession(backend, ctx)


@dataclass
class DevicePhase:
    make_session: Callable[..., DeviceSession] = _in_process
    on_chunk: Callable[[Pairs], None] = lambda _pairs: None
    devices_for: Callable[[Backend], int] = lambda _backend: 1
    background: bool = False
    tick: Callable[[], None] | None = None  # called every second while the caller waits for a piece (progress lines)
    measured: set[str] = field(default_factory=set)  # item ids given to a piece
    stored: dict[str, Outcome] = field(default_factory=dict)
    delivered: set[str] = field(default_factory=set)  # item ids whose outcome was handed over
    runners: dict[str, PieceRunner] = field(default_factory=dict)  # per backend

    def outcome(self, item: BenchItem, backend: Backend, phase_items: Sequence[BenchItem], ctx: RunContext) -> Outcome:
        if item.item_id in self.stored:
            return self.stored.pop(item.item_id)
        if ctx.policy.interleave and item.item_id not in self.measured and item.backend not in self.runners:
            mine = [i for i in phase_items if i.backend == item.backend and i.item_id not in self.measured]
            if any(i.item_id == item.item_id for i in mine):
                self._start(backend, mine, ctx)
        runner = self.runners.get(item.backend)
        while item.item_id not in self.stored and runner is not None and not runner.finished:
            self._deliver(runner)
        if item.item_id in self.stored:
            return self.stored.pop(item.item_id)
        spread = max(1, self.devices_for(backend))
        device = item.copy if item.copy is not None and item.copy < spread else 0  # a vendor copy on its own GPU
        return self._measure(backend, [item], ctx, device)[0][1]  # on its own, same session kind

    def start(self, backend: Backend, items: Sequence[BenchItem], ctx: RunContext) -> None:
        """Start measuring ``backend``'s ``items`` before its first item asks (overlapped runs)."""
        mine = [i for i in items if i.backend == backend.name and i.item_id not in self.measured]
        if ctx.policy.interleave and mine and backend.name not in self.runners:
            self._start(backend, mine, ctx)

    def wait_idle(self) -> None:
        for runner in self.runners.values():
            while not runner.finished:
                self._deliver(runner)

    def cancel(self) -> None:
        for runner in self.runners.values():
            runner.cancel()

    def _start(self, backend: Backend, items: list[BenchItem], ctx: RunContext) -> None:
        devices = max(1, self.devices_for(backend))
        pieces = plan_pieces(items, devices)
        self.measured.update(i.item_id for p in pieces for d in range(devices) for i in p.items_for(d))
        trace.mark("phase start", backend=backend.name, pieces=len(pieces), devices=devices, items=len(items))

        merged = None
        if devices > 1 and self.background and ctx.progress is not None:
            merged = MergedProgress(ctx.progress, lambda: runner.queue_empty())

        def measure_piece(piece: Piece, device: int) -> Pairs:
            trace.mark("chunk start", backend=backend.name, problem=piece.label, items=len(piece.kernels), device=device)
            own = replace(ctx, progress=merged.for_device(device)) if merged is not None else ctx
            pairs = self._measure(backend, piece.items_for(device), own, device)
            trace.mark("chunk measured", problem=piece.label, device=device)
            return pairs

        runner = PieceRunner(pieces, devices, measure_piece, self.background)
        self.runners[backend.name] = runner
        runner.start()

    def _deliver(self, runner: PieceRunner) -> None:
        pairs = runner.next_done(self.tick)
        if pairs is None:
            return
        fresh = [(i, o) for i, o in pairs if i.item_id not in self.delivered]
        self.delivered.update(i.item_id for i, _ in fresh)
        self.on_chunk(fresh)
        trace.mark("chunk journaled")
        self.stored.update((i.item_id, o) for i, o in fresh)

    def _measure(self, backend: Backend, items: Sequence[BenchItem], ctx: RunContext,
                 device: int) -> Pairs:
        session = self.make_session(backend, ctx, device)
        try:
            outcomes = run_device_items(session, items, ctx)
            uuid = str((getattr(session, "device_info", None) or {}).get("uuid") or "")
        finally:
            session.close()
        if uuid:
            for outcome in outcomes:
                if outcome.status == "timed" and outcome.record is not None:
                    outcome.record.setdefault("device_uuid", uuid)
        return list(zip(items, outcomes))
