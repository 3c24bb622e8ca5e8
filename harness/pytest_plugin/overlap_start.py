"""Applying the overlap of compile work and device timing to a pytest session
(harness/measure/overlap.py decides).

Contract: ``plan_overlap(config, state)`` sets ``state.devices.overlap``; ``start_overlap`` pins
this process and the device workers apart and starts the device phases in the background;
``start_compile_jobs_ahead``, ``compiles_wait_for_device``, ``overlap_line`` (None: no overlap).
"""

from __future__ import annotations

import os
from typing import Any, Callable

from ..core import trace
from ..measure.cpu_plan import pin, usable_cpus
from ..measure.overlap import MODES, Overlap, decide
from .expansion import prefetch
from .xdist_support import is_controller, worker_index


def add_options(group) -> None:
    group.addoption("--tlbench-overlap", default="auto", choices=MODES,
                    help="auto (default): where a backend times device items here and the host has CPUs to spare, "
                         "compile items run beside device timing, pinned to CPUs the device workers do not use; "
                         "on: also on small hosts; off: one phase after another")


def plan_overlap(config: Any, state: Any) -> None:
    mode = config.getoption("--tlbench-overlap")
    if is_controller(config) or worker_index() is not None:
        return  # an xdist run: each worker measures its own group, one phase after another
    device_backends = sorted({i.backend for i in state.to_measure(state.items.device_items)})
    timeable = [b for b in device_backends if not state.registry.compile_blocker(b) and state.registry.get(b).device_blocker() is None]
    compiling = sorted({i.backend for i in state.to_measure(state.items.compile_items)})
    if timeable and compiling and (state.devices.workers is None or not state.options.policy.interleave):
        state.devices.overlap = Overlap(False, "compile items and device timing one after another (--tlbench-isolation inprocess "
                                       "or --tlbench-no-interleave)")
        return
    if state.devices.workers is None:
        return
    workers = [f"{b}:{d}" for b in timeable for d in range(state.devices.workers.device_count(b))]
    usable = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(usable_cpus()))
    state.devices.overlap = decide(mode, timeable, compiling, usable, workers)
    trace.mark("overlap", on=state.devices.overlap.on, reason=state.devices.overlap.reason)


def start_compile_jobs_ahead(state: Any) -> None:
    if state.devices.workers is None or worker_index() is not None:
        return
    phase = state.devices.compile_phase
    timeable = set(state.devices.overlap.timeable) if state.devices.overlap is not None and state.devices.overlap.on else set()
    wanted: dict[str, int] = {}
    for backend in sorted({i.backend for i in state.to_measure(state.items.compile_items)}):
        if state.registry.compile_blocker(backend):
            continue
        jobs = phase.jobs if phase.jobs > 1 else (1 if backend in timeable else 0)
        if jobs:
            wanted[backend] = jobs
    state.devices.workers.keep_compile_jobs(wanted)  # those started with the workers for a backend left with no compile item
    for backend, jobs in wanted.items():
        state.devices.workers.start_compile_jobs(backend, jobs)


def compiles_wait_for_device(state: Any) -> bool:
    return not (state.devices.overlap is not None and state.devices.overlap.on)


def start_overlap(state: Any, ctx_for: Callable[[str], Any]) -> None:
    overlap = state.devices.overlap
    if state.devices.overlap_started or overlap is None or not overlap.on or overlap.plan is None:
        return
    state.devices.overlap_started = True
    plan = overlap.plan
    pin(plan.compile)  # this process, and so every child it starts from now on
    state.devices.workers.pin_compile_jobs(plan.compile)
    timeable = set(overlap.timeable)
    phase = state.devices.compile_phase
    phase.own_workers = lambda backend: backend in timeable  # its device worker is busy timing
    compiling = sorted(b for b in {i.backend for i in state.to_measure(state.items.compile_items)} if not state.registry.compile_blocker(b))
    phase.side_by_side = lambda backend: {b: (None if phase.parallel(b) else state.devices.workers.session(b)) for b in compiling if b != backend}
    for backend in overlap.timeable:
        for device, session in enumerate(state.devices.workers.device_sessions(backend)):
            session.pin(plan.device[f"{backend}:{device}"], plan.compile)
    for backend in overlap.timeable:
        items = [i for i in state.to_measure(state.items.phase_items) if i.backend == backend]
        if not items:
            continue
        state.devices.prefetched.add(backend)
        prefetch(state, backend)
        state.devices.device_phase.start(state.registry.get(backend), items, ctx_for(backend))
    trace.mark("overlap started", timeable=",".join(overlap.timeable))


def overlap_line(state: Any) -> str | None:
    overlap = state.devices.overlap
    if overlap is None or overlap.reason.startswith(("no device timing", "no compile items")):
        return None
    return f"overlap: {overlap.reason}" if overlap.on else f"no overlap: {overlap.reason}"
