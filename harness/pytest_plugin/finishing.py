"""An item's outcome made final, and a device-phase chunk journaled as soon as it ends.

Contract: ``finish_outcome(state, item, backend, outcome)`` is the outcome as it goes into the JSON and the
journal (the worker's account on a failure; kernel hash, % of peak, device uuid and, in an overlapped run,
what it ran beside on which CPUs on a timed record); it is done once per outcome, so a second call changes
nothing.  ``journal_chunk(state, config, pairs)`` is the device phase's ``on_chunk``
(harness/measure/device_phase.py): it finishes each outcome of the chunk and appends it to the journal at
once, with the pytest-benchmark entry the item's own fixture will give (``bench_adapter.detached_fixture``),
so a run killed in a later chunk keeps this one; when pytest later runs the item, the journal finds its node
already written and adds no second line.  An interrupted outcome (or any, once the run was interrupted) is not
journaled. ``bench_group(item)`` is the item's pytest-benchmark group.
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
    """The outcome as it goes into the JSON and the journal: a failure with the worker's
    account, a timed record with its kernel hash, % of peak and device.  Done once per
    outcome (a chunk's outcomes are finished when the chunk ends)."""
    if state.devices.workers is not None:
        outcome = state.devices.workers.annotate(item, outcome)
    if outcome.status == "timed" and "kernel_hash" not in outcome.record:
        enrich_record(outcome.record, backend, item.case, state.options.calibrated)  # kernel hash, % of peak
        note = state.devices.overlap.note(item.kind, state.devices.compile_phase.together.get(item.backend, ())) if state.devices.overlap is not None else None
        if note is not None:
            outcome.record["overlap"] = note  # measured beside the other kind, on CPUs kept apart
        if item.kind == "device" and "device_uuid" not in outcome.record:
            uuid = (backend.device_info() or {}).get("uuid")
            if uuid:
                outcome.record["device_uuid"] = str(uuid)  # which GPU: a multi-GPU merge keeps them apart
    return outcome


def journal_chunk(state: Any, config: Any, pairs: list[tuple[BenchItem, Outcome]]) -> None:
    """A chunk of the device phase ended: finish its outcomes and journal them now, with the
    entry each item's fixture will give, so a run killed later keeps them (the item's own
    report later finds its node journaled and writes no second line)."""
    with state.records.journal.batch() if state.records.journal is not None else nullcontext():  # the chunk's lines: one write, one fsync
        for item, outcome in pairs:
            if outcome.status == "interrupted" or state.devices.interrupt.seen:
                continue  # a Ctrl-C's, not the item's: never journaled (a resume measures it)
            backend = state.registry.get(item.backend)
            finish_outcome(state, item, backend, outcome)
            node = state.items.phase_nodes.get(item.item_id)
            if state.records.journal is None or node is None:
                continue
            fixture = None
            if outcome.status == "timed":
                fixture = detached_fixture(config, node, outcome.samples_s, {EXTRA_KEY: outcome.record}, bench_group(item))
            state.records.journal.record(node.nodeid, item, outcome, fixture, backend)
