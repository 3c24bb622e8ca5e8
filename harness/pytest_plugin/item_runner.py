"""The ``tlbench`` fixture's runner: one pytest item's measurement, record and report.

Contract: ``ItemRunner(request, benchmark, item, state).run()`` measures ``item`` (reused from a
resumed journal, or in the device phase, compile phase, its worker or here) and hands samples and
record to pytest-benchmark, or skips / fails the item with the backend's or compiler's words.
Every outcome is journaled; an ``interrupted`` one ends the run as pytest's interrupted run.
"""

from __future__ import annotations

import pytest

from ..core.record import EXTRA_KEY, BenchItem
from ..measure.runner import InProcessCompileSession, Outcome, RunContext, run_item
from ..measure.setup_compile import pay_setup_once, time_once
from .bench_adapter import feed_samples, mark_not_measured
from .expansion import prefetch
from .finishing import bench_group, finish_outcome
from .gpu_split import worker_group_items
from .overlap_start import compiles_wait_for_device, start_overlap
from .state import TlbenchState
from .xdist_support import worker_index
from ..results.files.error_text import failure_line, headline

INTERRUPTED_LINE = ("tlbench: the run was interrupted (Ctrl-C); the items under way are not recorded as failures, "
                    "and --tlbench-resume measures every item not finished")


def traceback_words(config, traceback: str) -> str:
    """The traceback under ``-v`` or ``--tb=long`` / ``native``, else a line saying where it is."""
    if not traceback:
        return ""
    if config.get_verbosity() > 0 or config.getoption("tbstyle", "auto") in ("long", "native"):
        return "\n\n" + traceback.rstrip()
    return ("\n(its traceback: pytest -v or --tb=long prints it; the results file's tlbench.failed[].traceback "
            "and the journal hold it)")


class ItemRunner:
    def __init__(self, request, benchmark, item: BenchItem, state: TlbenchState):
        self.request, self.benchmark, self.item, self.state = request, benchmark, item, state

    def run(self) -> Outcome:
        item, state = self.item, self.state
        nodeid = self.request.node.nodeid
        reason = state.registry.compile_blocker(item.backend)
        backend = None
        preflight = state.items.preflight_failed.get(item.item_id)
        if preflight is not None:  # the suite's own code failed on CPU: nothing of it compiles
            outcome = Outcome(status="failed", stage="preflight", reason=preflight,
                              traceback=state.items.preflight_tracebacks.get(item.item_id, ""))
        elif reason:
            outcome = Outcome(status="skipped", reason=reason)
        else:
            backend = state.registry.get(item.backend)
            reused = state.records.journal.reused_record(nodeid, item, backend) if state.records.journal else None
            if reused is not None:
                outcome = Outcome(status="timed", samples_s=tuple(reused["samples_s"]), record=reused)
            else:
                outcome = self._measure(backend)
        if outcome.status == "interrupted" or state.devices.interrupt.seen:
            raise KeyboardInterrupt(INTERRUPTED_LINE)
        state.records.outcomes.append((nodeid, item, outcome))
        if state.progress.board is not None:
            state.progress.board.tick()  # lines the device threads left due (a phase's end) are written between items
        timed = outcome.status == "timed"
        if timed:
            self.benchmark.group = bench_group(item)
            feed_samples(self.benchmark, outcome.samples_s, {EXTRA_KEY: outcome.record})
        if state.records.journal:
            state.records.journal.record(nodeid, item, outcome, self.benchmark if timed else None, backend)
        if outcome.status == "skipped":
            pytest.skip(outcome.reason)
        if not timed:
            mark_not_measured(self.benchmark, f"{outcome.stage} failed")
            line = failure_line({"stage": outcome.stage, "error": outcome.reason, "worker": outcome.worker})
            whole = "" if headline(outcome.reason) == outcome.reason.strip() else f"\n{outcome.reason}"
            pytest.fail(line + whole + traceback_words(self.request.config, outcome.traceback), pytrace=False)  # pytest's short summary shows the first line
        return outcome

    def _measure(self, backend) -> Outcome:
        item, state = self.item, self.state
        if state.items.xdist_groups is not None and not state.items.xdist_group_known:  # this xdist worker's first item
            groups, first = state.items.xdist_groups, item.item_id
            state.items.xdist_groups = None  # decided once, here
            mine = worker_group_items(state.items.phase_items, groups, first)
            if mine is not None:  # (compile items in an xdist worker are timed one by one: not narrowed)
                state.items.phase_items[:] = mine
                state.items.device_items[:] = worker_group_items(state.items.device_items, groups, first) or []
                state.items.xdist_group_known = True
        if worker_index() is None:
            start_overlap(state, lambda name: _context(state, name, "device"))  # at the first item, where the run overlaps
        if item.kind == "compile" and compiles_wait_for_device(state):
            state.devices.device_phase.wait_idle()  # device timing under way in the background ends first: never both at once
        if item.kind == "device" and item.backend not in state.devices.prefetched and backend.device_blocker() is None:
            state.devices.prefetched.add(item.backend)  # once: the pool and the worker keep the list (a restarted worker gets it again)
            prefetch(state, item.backend)
        if item.kind == "compile" and worker_index() is None:
            return finish_outcome(state, item, backend, self._compile_in_phase(backend))
        if item.kind == "compile" and item.backend not in state.records.setup_s:
            if state.devices.workers is None:
                state.records.setup_s[item.backend] = pay_setup_once(backend, item, state.devices.pool.wait_idle)
            else:  # in the backend's worker process, where the items run; its result is discarded
                session = state.devices.workers.session(item.backend)
                state.records.setup_s[item.backend] = time_once(lambda: session.setup(item, state.options.policy, state.options.seed))
        ctx = _context(state, item.backend, item.kind)
        # An xdist worker measures its cost group as one phase; under another --dist it gets
        # items one at a time and measures each on its own.
        in_phase = item.kind == "device" and (worker_index() is None or state.items.xdist_group_known)
        if in_phase and (state.devices.workers is None or state.options.policy.interleave):
            outcome = state.devices.device_phase.outcome(item, backend, state.to_measure(state.items.phase_items), ctx)
        elif state.devices.workers is not None:
            outcome = state.devices.workers.session(item.backend).run(item, state.options.policy, state.options.compile_rounds, state.options.seed)
        else:
            outcome = run_item(item, backend, ctx)
        return finish_outcome(state, item, backend, outcome)

    def _compile_in_phase(self, backend) -> Outcome:
        item, state = self.item, self.state
        phase_items = state.to_measure(state.items.compile_items)
        workers = state.devices.workers
        session = (workers.session(item.backend) if workers is not None
                   else InProcessCompileSession(backend, _context(state, item.backend, "compile")))
        outcome = state.devices.compile_phase.outcome(
            item, phase_items, lambda it: session.run(it, state.options.policy, state.options.compile_rounds, state.options.seed), shared=session)
        if item.backend not in state.records.setup_s and item.backend in state.devices.compile_phase.setup_s:
            state.records.setup_s[item.backend] = state.devices.compile_phase.setup_s[item.backend]
        if item.backend in state.devices.compile_phase.setup_parts:
            state.records.setup_parts[item.backend] = state.devices.compile_phase.setup_parts[item.backend]
        return outcome


def _context(state: TlbenchState, backend: str, kind: str) -> RunContext:
    device = kind == "device"
    return RunContext(policy=state.options.policy, compile_rounds=state.options.compile_rounds, seed=state.options.seed,
                      compiled=state.devices.pool.get, before_cold_compile=state.devices.pool.wait_idle,
                      interrupted=state.devices.interrupt, progress=state.loop_line(backend) if device else None,
                      search_problem=state.options.search_problem if device else None)
