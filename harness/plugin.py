"""pytest glue: options, parametrization, the ``tlbench`` fixture, JSON and terminal hooks.

Contract: a suite module declares ``SWEEP = Sweep(...)`` and a test taking the ``tlbench``
fixture; one item per (measure kind, backend, case) is measured through ``harness.measure`` and
handed to pytest-benchmark, so ``stats`` are device (or compile) seconds.  Failed and skipped items
go to the JSON's top-level ``tlbench`` key.  Per-run state lives in ``config.stash``.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from .core import trace
from .core.record import EXTRA_KEY, SCHEMA_VERSION, BenchItem, failure_record, plain_data, skip_record
from .core.registry import BackendRegistry
from .core.sweep import Sweep
from .measure.runner import Outcome
from .pytest_plugin import hookspecs, journaling
from .pytest_plugin.bench_adapter import benchmark_entry, quiet_table_by_default, restore_table, result_json_path
from .pytest_plugin.commit_info import fill_commit_info
from .pytest_plugin.early_start import looks_like_suite, start_workers_early
from .pytest_plugin.expansion import diagnose_space, expand
from .pytest_plugin.gpu_split import worker_groups
from .pytest_plugin.item_runner import INTERRUPTED_LINE, ItemRunner
from .pytest_plugin.compare_machine import MachineInfoOnce, add_spread_devices, fill_machine_info
from .pytest_plugin.manners import (ITEM_PARAM, has_tlbench_item, item_id_of, register_machine_compare,
                                    skip_without_benchmark)
from .pytest_plugin.options import COMPILE_ROUNDS, backend_option_values
from .pytest_plugin.options import pytest_addoption  # noqa: F401  (the hook, registered through this module)
from .pytest_plugin.overlap_start import overlap_line, plan_overlap, start_compile_jobs_ahead
from .pytest_plugin.preflight import run_preflight
from .pytest_plugin.run_notes import autotune_lines, phases_s, write_best_configs, write_summary
from .pytest_plugin.run_setup import build_state
from .pytest_plugin.spread import largest_problem_first
from .pytest_plugin.state import STATE, SweepNote
from .pytest_plugin.xdist_hooks import (  # noqa: F401  (the hooks, registered through this module)
    HIDDEN_WORKER, pytest_cmdline_main, pytest_configure_node, pytest_sessionstart, pytest_xdist_make_scheduler)
from .pytest_plugin.xdist_support import (
    KEY_BENCH, KEY_MACHINE, KEY_OUTCOME, is_controller, pin_env, worker_index)


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(hookspecs)


_TABLE_QUIETED = pytest.StashKey[bool]()  # pytest-benchmark's table turned off by default (bench_adapter)


def pytest_configure(config):
    trace.mark_first("configure")
    config.stash[_TABLE_QUIETED] = quiet_table_by_default(config)  # the per-item table: -v
    options = backend_option_values(config)
    registry = BackendRegistry.from_entry_points(options)
    config.hook.pytest_tlbench_register_backends(registry=registry, config=config)
    hidden = config.stash.get(HIDDEN_WORKER, None)  # this is an xdist worker (its marker is parked)
    if hidden is not None:  # pin it before any backend starts: its device runtime reads these
        traits = [registry.traits(n) for n in registry.names]
        os.environ.update(pin_env(config.getoption("tlbench_devices"), traits, worker_index(hidden)))
    state = build_state(config, registry, hidden)
    state.records.journal = journaling.JournalingPlugin(config, state.settings, _outcome_record,
                                                        ran_items=lambda: bool(state.records.outcomes))
    config.pluginmanager.register(state.records.journal, "tlbench-journal")
    config.pluginmanager.register(journaling.ExitStatusNote(state), "tlbench-exit-status")
    if config.pluginmanager.hasplugin("benchmark"):
        for k, plugin in enumerate(MachineInfoOnce().plugins):
            config.pluginmanager.register(plugin, f"tlbench-machine-info-once-{k}")
    register_machine_compare(config, registry)  # before pytest-benchmark (trylast) compares
    start_workers_early(config, state, at_configure=True)  # named backends: imports and device start overlap collection


def pytest_unconfigure(config):
    trace.mark("unconfigure")
    state = config.stash.get(STATE, None)
    if state is not None:
        state.devices.device_phase.cancel()  # an interrupted run: no piece starts after this
        state.devices.pool.close()
        if state.devices.workers is not None:
            state.devices.workers.close()
            trace.mark("workers closed")
        state.devices.interrupt.disarm()


def pytest_report_collectionfinish(config, start_path, items):
    state = config.stash.get(STATE, None)
    if state is None or not (state.items.diagnostics or state.items.preflight_lines):
        return None
    return [f"[tlbench] {line}" for line in state.items.preflight_lines] + [d.summary() for d in state.items.diagnostics]


def pytest_collectstart(collector):
    """The first module that looks like a tlbench suite starts the workers before its imports."""
    state = collector.config.stash.get(STATE, None)
    if (state is not None and not state.devices.workers_started and isinstance(collector, pytest.Module)
            and looks_like_suite(collector.path)):
        start_workers_early(collector.config, state)


def pytest_generate_tests(metafunc):
    if ITEM_PARAM not in metafunc.fixturenames:
        return
    sweep = getattr(metafunc.module, "SWEEP", None)
    if not isinstance(sweep, Sweep):
        raise pytest.UsageError(f"{metafunc.module.__name__} uses the tlbench fixture but defines no SWEEP = Sweep(...)")
    state = metafunc.config.stash[STATE]
    start_workers_early(metafunc.config, state)
    items = expand(sweep, state)
    run_preflight(items, state, metafunc.config.getoption("tlbench_device_memory"))  # on CPU, before anything compiles
    diagnostics = [] if metafunc.config.getoption("tlbench_preflight_only") else diagnose_space(sweep, state)
    state.items.diagnostics += diagnostics
    state.items.sweeps[sweep.name] = SweepNote(sweep.description, len(items), diagnostics)
    if state.progress.scope_counts is not None:
        state.progress.scope_counts.add(sweep, state, len(items))
    state.items.items_by_id.update((item.item_id, item) for item in items)
    ids = [i.item_id for i in items]  # parametrized by id (a plain string): pytest-benchmark's ``params`` stay readable
    metafunc.parametrize(ITEM_PARAM, ids, ids=ids)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """A suite with no item in this scope (e.g. kept out of ``quick``) is deselected, not
    reported as a skipped empty parameter set."""
    state = config.stash.get(STATE, None)
    if state is None:
        return
    skip_without_benchmark(config, items)
    empty = [i for i in items
             if ITEM_PARAM in getattr(i, "fixturenames", ()) and item_id_of(i) not in state.items.items_by_id]
    if empty:
        config.hook.pytest_deselected(items=empty)
        items[:] = [i for i in items if i not in empty]
    if state.options.spread_devices > 1:
        largest_problem_first(items, state.items.items_by_id)


def pytest_collection_finish(session):
    """The items left after every deselection are the only ones prefetched and measured."""
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    quieted = session.config.stash.get(_TABLE_QUIETED, False)
    if quieted and not is_controller(session.config) and not has_tlbench_item(session.items):
        restore_table(session.config)  # no tlbench item: pytest-benchmark's table as it shows it
        session.config.stash[_TABLE_QUIETED] = False
    trace.mark("collected", items=len(session.items))
    started = trace.process_start()
    state.records.startup_s = time.time() - started if started is not None else None
    state.items.take_collected(session.items)
    if state.items.collected_ids and worker_index() is None and not session.config.option.collectonly:
        note = journaling.set_aside_previous(session.config)  # an earlier run's file never reads as this run's
        if note:
            state.records.file_notes.append(note)
    if getattr(session.config, "workerinput", {}).get("tlbench_cost_groups"):
        state.items.xdist_groups = worker_groups(session.items, state.items.items_by_id)  # by the costs it wrote for the controller
    if state.devices.workers is not None and not is_controller(session.config):
        by_id = state.items.items_by_id
        names = sorted(n for n in {by_id[i].backend for i in map(item_id_of, session.items) if i in by_id}
                       if not state.registry.compile_blocker(n))
        state.devices.workers.keep_only(names)  # a worker started early for a backend left with no item ends
        state.devices.workers.start(names)  # imports overlap the run (already started at the first suite)
    if not session.config.option.collectonly:
        plan_overlap(session.config, state)  # compile work beside device timing, where there is both
        start_compile_jobs_ahead(state)


@pytest.fixture
def tlbench_item(request):  # replaced by parametrization
    raise pytest.UsageError("tlbench_item is parametrized from the module's SWEEP")


@pytest.fixture
def tlbench(request, benchmark, tlbench_item):
    """Run this test's tlbench item: ``def test_x(tlbench): tlbench.run()``."""
    state = request.config.stash[STATE]
    return ItemRunner(request, benchmark, state.items.items_by_id[tlbench_item], state)


# pytest-benchmark's hooks are optional: a run with ``-p no:benchmark`` has none


@pytest.hookimpl(optionalhook=True)
def pytest_benchmark_update_machine_info(config, machine_info):
    state = config.stash.get(STATE, None)
    if state is not None:
        fill_machine_info(machine_info, state.registry)
        if state.devices.workers is not None and state.devices.workers.devices:  # one process, one worker per device
            add_spread_devices(machine_info, {n: state.devices.workers.device_infos(n) for n in state.registry.loaded()})


@pytest.hookimpl(optionalhook=True)
def pytest_benchmark_update_json(config, benchmarks, output_json):
    state = config.stash.get(STATE, None)
    if state is None or not state.records.outcomes:
        return
    options, records = state.options, state.records
    failed, skipped = ([_outcome_record(n, i, o) for n, i, o in records.outcomes if o.status == status]
                       for status in ("failed", "skipped"))
    partial = journaling.partial_note(state, records.exitstatus)
    output_json[EXTRA_KEY] = {
        "schema_version": SCHEMA_VERSION, "backend_choice": options.backend_choice, "backends": options.selected,
        "scope": options.scope, "kinds": list(options.kinds), "input_seed": options.seed,
        "sweeps": {name: asdict(note) for name, note in state.items.sweeps.items()},
        "setup_s": records.setup_s, "setup_parts": records.setup_parts, "phases_s": phases_s(state),
        "test_only": list(options.test_only), "failed": failed, "skipped": skipped,
        "partial": asdict(partial) if partial else None, **(records.journal.json_note() if records.journal else {}),
    }


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In an xdist worker, ship the item's benchmark entry and outcome with the report."""
    report = (yield).get_result()
    state = item.config.stash.get(STATE, None)
    if state is None or worker_index() is None or report.when != "call":
        return
    mine = [(i, o) for n, i, o in state.records.outcomes if n == item.nodeid]
    if not mine:
        return
    bench_item, outcome = mine[-1]
    entry = benchmark_entry(item.funcargs.get("benchmark")) if outcome.status == "timed" else None
    if entry is not None:
        report.user_properties.append((KEY_BENCH, plain_data(entry)))
    report.user_properties.append((KEY_OUTCOME, plain_data(_outcome_record(item.nodeid, bench_item, outcome))))
    loaded = state.registry.loaded()
    if set(loaded) - state.records.machine_shipped:  # each backend's device info once per worker
        report.user_properties.append((KEY_MACHINE, plain_data({n: b.device_info() for n, b in loaded.items()})))
        state.records.machine_shipped |= set(loaded)


def _outcome_record(nodeid: str, item: BenchItem, outcome: Outcome) -> dict[str, Any]:
    search = (outcome.record or {}).get("search")  # a config the search measured or left (harness/search/live.py)
    kept = {"search": search} if search else {}
    if outcome.status == "failed":
        o = outcome
        return {**failure_record(item, nodeid, o.reason, o.stage, o.plan, o.worker, o.traceback), **kept}
    if outcome.status == "skipped":
        return {**skip_record(item, nodeid, outcome.reason), **kept}
    return {**outcome.record, "status": "timed"}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    trace.mark("sessionfinish")
    state = session.config.stash.get(STATE, None)
    if state is not None:
        if worker_index() is None and journaling.write_if_nothing_timed(session.config, state):
            state.records.file_notes.append(
                "[tlbench] no item was timed: the results file holds the failed and skipped items")
        if state.devices.workers is not None:
            state.devices.device_phase.cancel()  # every item has reported: no piece is left to start
            state.devices.workers.begin_close()  # the workers exit while the results are written
        if state.options.autotune_path and worker_index() is None:
            write_best_configs(session.config, state)
    machine_compare = session.config.pluginmanager.getplugin("tlbench-machine-compare")
    if machine_compare is not None and worker_index() is None:
        collector = session.config.pluginmanager.getplugin("tlbench-xdist-controller")
        machine_compare.finish(session.config, collector.machine_extra() if collector is not None else {})


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    state = terminalreporter.config.stash.get(STATE, None)
    if state is None:
        return
    if state.progress.board is not None:
        state.progress.board.tick()  # a phase's last line, before the summary
    if state.devices.interrupt.seen:
        terminalreporter.write_line(INTERRUPTED_LINE)
    if not state.records.outcomes:
        for line in autotune_lines(state):  # the xdist controller's
            terminalreporter.write_line(line)
        return
    records = [_outcome_record(n, i, o) for n, i, o in state.records.outcomes]
    quieted = terminalreporter.config.stash.get(_TABLE_QUIETED, False)
    extra = _summary_extra(state, records, result_json_path(terminalreporter.config) if quieted else None)
    write_summary(terminalreporter, records, state.records.setup_s, state.registry.traits, extra,
                  setup_parts=state.records.setup_parts)


@pytest.hookimpl(optionalhook=True)
def pytest_benchmark_update_commit_info(config, commit_info):
    fill_commit_info(commit_info, Path(__file__).resolve().parents[1])


def _summary_extra(state: Any, records: Sequence[Mapping[str, object]], results_path: Any) -> list[str]:
    """The lines after the summary blocks: notes, where the results went, diagnostics, autotune,
    the overlap, and what the full scope adds to a quick one."""
    extra = [*(state.records.journal.summary_lines() if state.records.journal else []), *state.records.file_notes]
    if results_path is not None:
        extra.append(f"[tlbench] results: {results_path} (pytest-benchmark's per-item table: -v)")
    extra += [diag.summary() for diag in state.items.diagnostics if diag.verdict != "ok" or diag.inert_keys]
    extra += [*autotune_lines(state), *filter(None, [overlap_line(state)])]
    if state.progress.scope_counts is not None:
        extra += state.progress.scope_counts.lines(records, state.options.compile_rounds, COMPILE_ROUNDS,
                                                   state.options.policy.compile_max_seconds)
    return extra
