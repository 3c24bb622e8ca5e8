"""An item's outcome made final, and a device-phase chunk journaled as soon as it ends.

Contract: ``finish_outcome(state, item, backend, outcome)`` adds the worker's account to a failure
and kernel hash, % of peak, device uuid and overlap note to a timed record, once.
``journal_chunk(state, config, pairs)`` journals a chunk at once (interrupted outcomes never).
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from ..core.record import EXTRA_KEY, BenchItem
from ..measure.outcome import Outcome
from .bench_adapter import detached_fixture
from .enrich import enrich_record


def bench_group(item: BenchItem) -> str:
    return f"{item.kind}-{item.backend}-{item.case.problem.problem_id}"


def finish_outcome(state: Any, item: BenchItem, backend, outcome: Outcome) -> Outcome:
    if state.devices.workers is not None:
        outcome = state.devices.workers.annotate(item, outcome)
    if outcome.status == "timed" and "kernel_hash" not in outcome.record:
        enrich_record(outcome.record, backend, item.case, state.options.calibrated)  # kernel hash, % of peak
        overlap = state.devices.overlap
        note = overlap.note(item.kind, state.devices.compile_phase.together.get(item.backend, ())) if overlap is not None else None
        if note is not None:
            outcome.record["overlap"] = note  # measured beside the other kind, on CPUs kept apart
        if item.kind == "device" and "device_uuid" not in outcome.record:
            uuid = (backend.device_info() or {}).get("uuid")
            if uuid:
                outcome.record["device_uuid"] = str(uuid)  # which GPU: a multi-GPU merge keeps them apart
    return outcome


def journal_chunk(state: Any, config: Any, pairs: list[tuple[BenchItem, Outcome]]) -> None:
    with state.records.journal.batch() if state.records.journal is not None else nullcontext():  # the chunk's lines: one write, one fsync
        for item, outcome in pairs:
            if outcome.status == "interrupted" or state.devices.interrupt.seen:
                continue  # a Ctrl-C's, not the item's: never journaled (a resume measures it)
            backend = state.registry.get(item.backend)
            finish_outcome(state, item, backend, outcome)
            node = state.items.phase_nodes.get(item.item_id)
            if state.records.journal is None or node is None:
                continue
            fixture = (detached_fixture(config, node, outcome.samples_s, {EXTRA_KEY: outcome.record}, bench_group(item))
                       if outcome.status == "timed" else None)
            state.records.journal.record(node.nodeid, item, outcome, fixture, backend)
