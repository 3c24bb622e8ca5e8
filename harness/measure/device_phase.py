"""The device phase of a pytest session: all selected device items of a backend, measured
together in interleaved rounds the first time one of them runs.

Contract: ``DevicePhase.outcome(item, backend, phase_items, ctx)`` returns the item's
``Outcome``.  The first call for a backend measures every item of ``phase_items`` on that
backend (in the order given) through one ``DeviceSession`` made by ``make_session(backend,
ctx)`` (default ``InProcessSession``; robust's worker session plugs in here) and stores the
outcomes; each later call hands its item the stored one.  An item that was not in the phase
(or a policy that does not interleave) is measured on its own through the same loop.  Items
the caller will not measure (resumed from a journal) are left out of ``phase_items`` by the
caller.  One instance per pytest session (kept in ``config.stash``): no global state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from harness.core.backend_api import Backend
from harness.core.record import BenchItem
from harness.measure.device_session import DeviceSession, InProcessSession
from harness.measure.outcome import Outcome, RunContext
from harness.measure.runner import run_device_items, run_item

SessionFactory = Callable[[Backend, RunContext], DeviceSession]


@dataclass
class DevicePhase:
    make_session: SessionFactory = InProcessSession
    measured_backends: set[str] = field(default_factory=set)
    stored: dict[str, Outcome] = field(default_factory=dict)

    def outcome(self, item: BenchItem, backend: Backend, phase_items: Sequence[BenchItem], ctx: RunContext) -> Outcome:
        if item.item_id in self.stored:
            return self.stored.pop(item.item_id)
        if ctx.policy.interleave and item.backend not in self.measured_backends:
            self.measured_backends.add(item.backend)
            mine = [i for i in phase_items if i.backend == item.backend]
            if any(i.item_id == item.item_id for i in mine):
                self.stored.update(self._measure(backend, mine, ctx))
                return self.stored.pop(item.item_id)
        return run_item(item, backend, ctx)

    def _measure(self, backend: Backend, items: Sequence[BenchItem], ctx: RunContext) -> dict[str, Outcome]:
        session = self.make_session(backend, ctx)
        try:
            outcomes = run_device_items(session, items, ctx)
        finally:
            session.close()
        return {i.item_id: o for i, o in zip(items, outcomes)}
