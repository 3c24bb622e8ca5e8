"""The device phase of a pytest session: the selected device items of a backend, measured in
interleaved rounds one problem at a time (one chunk per (backend, problem)).

Contract: ``DevicePhase.outcome(item, backend, phase_items, ctx)`` returns the item's
``Outcome``.  The first call for an item of a (backend, problem) measures every item of
``phase_items`` with that backend and problem (kernels and the problem's vendor item, in
the order given) in interleaved rounds through one ``DeviceSession`` made by
``make_session(backend, ctx)`` (default ``InProcessSession``; the worker session plugs in
here), hands every outcome of that chunk to ``on_chunk([(item, outcome), ...])`` as soon as
the chunk ends (the plugin finishes the records and journals them there, so a run killed in
a later chunk keeps this one), and stores them; each later call hands its item the stored
one.  Inside a chunk the rounds and interleaving are those of harness/measure/rounds.py (the
vendor ratio is per problem, so a chunk holds everything it pairs).  An item that was not
in the phase, one asked for again, or a policy that does not interleave is measured on its
own through the same loop and a session of the same factory (a worker's, when items run
in one: never in the calling process).  Items the caller will not measure (resumed from a
journal) are left out of ``phase_items`` by the caller.  One instance per pytest session (kept in
``config.stash``): no global state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from harness.core import trace
from harness.core.backend_api import Backend
from harness.core.record import BenchItem
from harness.measure.device_session import DeviceSession, InProcessSession
from harness.measure.outcome import Outcome, RunContext
from harness.measure.runner import run_device_items

SessionFactory = Callable[[Backend, RunContext], DeviceSession]
ChunkHook = Callable[[list[tuple[BenchItem, Outcome]]], None]


def chunk_key(item: BenchItem) -> tuple[str, Any]:
    """Items measured together: one backend, one problem (its kernels and its vendor item)."""
    return item.backend, item.case.problem


def _no_hook(_pairs: list[tuple[BenchItem, Outcome]]) -> None:
    return None


@dataclass
class DevicePhase:
    make_session: SessionFactory = InProcessSession
    on_chunk: ChunkHook = _no_hook
    measured: set[str] = field(default_factory=set)  # item ids measured in a chunk
    stored: dict[str, Outcome] = field(default_factory=dict)

    def outcome(self, item: BenchItem, backend: Backend, phase_items: Sequence[BenchItem], ctx: RunContext) -> Outcome:
        if item.item_id in self.stored:
            return self.stored.pop(item.item_id)
        if ctx.policy.interleave and item.item_id not in self.measured:
            key = chunk_key(item)
            chunk = [i for i in phase_items if chunk_key(i) == key and i.item_id not in self.measured]
            if any(i.item_id == item.item_id for i in chunk):
                self.measured.update(i.item_id for i in chunk)
                trace.mark("chunk start", backend=key[0], problem=getattr(key[1], "problem_id", str(key[1])), items=len(chunk))
                pairs = self._measure(backend, chunk, ctx)
                trace.mark("chunk measured")
                self.on_chunk(pairs)
                trace.mark("chunk journaled")
                self.stored.update((i.item_id, o) for i, o in pairs)
                return self.stored.pop(item.item_id)
        return self._measure(backend, [item], ctx)[0][1]  # through the same session kind (its worker, if any)

    def _measure(self, backend: Backend, items: Sequence[BenchItem], ctx: RunContext) -> list[tuple[BenchItem, Outcome]]:
        session = self.make_session(backend, ctx)
        try:
            outcomes = run_device_items(session, items, ctx)
        finally:
            session.close()
        return list(zip(items, outcomes))
