"""From a suite's ``SWEEP`` to the run's items, the search-space diagnostics, and the prefetch.

Contract: ``expand(sweep, state)``: one ``BenchItem`` per (kind, selected backend, case), vendor and
``best`` cases included; ``diagnose_space(sweep, state)``: rejections and inert keys per backend;
``prefetch(state, backend)`` compiles a backend's device cases ahead.
"""

from __future__ import annotations

from typing import Any

from ..core import trace
from ..core.cases import Case
from ..core.kernel_traits import takes_keyword
from ..core.record import BenchItem
from ..core.space import SpaceDiagnostics, diagnose
from ..core.sweep import Sweep
from ..measure.device_pieces import prefetch_order
from ..results.export.best_configs import load_best
from .gpu_split import prefetch_lock, vendor_copies, worker_count
from .inert_cache import ProbeKey, cached_inert_keys, probe_key
from .xdist_support import worker_index


def device_of(state: Any, backend: str) -> str | None:
    """The accelerator a backend runs on here (None where it cannot be loaded)."""
    if state.registry.compile_blocker(backend):
        return None
    accelerator = state.registry.get(backend).device_info().get("accelerator")
    return str(accelerator) if accelerator else None


def expand(sweep: Sweep, state: Any) -> list[BenchItem]:
    items: list[BenchItem] = []
    for kind in (k for k in state.options.kinds if k in sweep.kinds):
        for backend in state.backends():
            device = device_of(state, backend) if sweep.best_configs and sweep.applies_to(backend) else None
            items += [
                BenchItem(backend, kind, c, tuple(sweep.skip_on))
                for c in sweep.cases(backend, state.options.scope, device=device, load_best=load_best, **_dialect(sweep.cases, state, backend))
                if kind == "device" or c.label is None]
            if kind == "device":
                copies = vendor_copies(max(worker_count(), state.options.spread_devices))  # one vendor item per GPU of a multi-GPU run
                vendor = sweep.vendor_cases(backend, state.options.scope, state.registry.dialect(backend))
                items += [BenchItem(backend, kind, v, copy=k) for v in vendor for k in copies]
    return items


def _dialect(method: Any, state: Any, backend: str) -> dict[str, str | None]:
    """``{"dialect": ...}`` for a sweep method that takes one (older sweep subclasses do not)."""
    return {"dialect": state.registry.dialect(backend)} if takes_keyword(method, "dialect") else {}


def diagnose_space(sweep: Sweep, state: Any) -> list[SpaceDiagnostics]:
    out = []
    for backend_name in state.backends():
        configs = sweep.configs_for(backend_name, state.options.scope, **_dialect(sweep.configs_for, state, backend_name))
        if not sweep.applies_to(backend_name) or not configs or state.registry.compile_blocker(backend_name):
            continue
        backend = state.registry.get(backend_name)
        inert: list[str] | None = None  # probed once per backend: inertness is a property of the configs
        for problem in sweep.problems_for(state.options.scope):
            diag = diagnose(problem, configs, backend_name, reject=lambda c, p=problem: backend.rejection(Case(p, c)))
            if sweep.probe_inert_keys and inert is None:
                legal = [c for c in configs if backend.rejection(Case(problem, c)) is None]
                inert = cached_inert_keys(state.items.inert_cache, _probe_key(backend, problem, legal), legal,
                                          lambda c, p=problem: backend.kernel_source(Case(p, c)))
            diag.inert_keys = inert or []
            out.append(diag)
    return out


def _probe_key(backend: Any, problem: Any, legal: list[Any]) -> ProbeKey | None:
    body_hash = getattr(backend, "kernel_body_hash", None)
    bodies = [h for h in (body_hash(Case(problem, c)) for c in legal) if h] if callable(body_hash) else []
    return probe_key(backend, problem.family.name, problem.problem_id, legal, bodies)


def prefetch(state: Any, backend_name: str) -> None:
    backend = state.registry.get(backend_name)
    trace.mark("prefetch", backend=backend_name)
    cases = [i.case for i in state.to_measure(state.items.device_items)
             if i.backend == backend_name and isinstance(i.case, Case) and backend.rejection(i.case) is None]
    if state.devices.workers is not None:  # compiled in the backend's worker process(es), where items run
        devices = state.devices.workers.device_count(backend_name)
        for device, session in enumerate(state.devices.workers.device_sessions(backend_name)):
            session.prefetch(prefetch_order(cases, devices, device))
    elif worker_index() is None:
        state.devices.pool.prefetch(backend, cases)
    else:  # under xdist the first worker compiles everything; the others find it in the on-disk cache
        with prefetch_lock(state.options.prefetch_lock_path):
            state.devices.pool.prefetch(backend, cases)
            state.devices.pool.wait_idle()
