"""Build the run's ``TlbenchState`` at ``pytest_configure`` (harness/plugin.py).

Contract: ``build_state(config, registry, hidden)`` reads the tlbench options (a bad one is a
``pytest.UsageError``), makes the progress board, compile pool, device workers and both phases,
stores the state in ``config.stash[STATE]`` and registers the xdist controller's collector and the
shard filter.  ``hidden``: this process's parked xdist worker marker, else None.
"""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, TypeVar

import pytest

from ..core.registry import BackendRegistry, UnknownBackend
from ..measure.cache_warmer import processes as build_processes, warmer_for
from ..measure.compile_phase import CompilePhase
from ..measure.compile_pool import CompilePool
from ..measure.cpu_plan import resolve_jobs, usable_cpus
from ..measure.device_phase import DevicePhase
from ..measure.option_types import check_devices
from ..measure.options import policy_from_options
from . import isolation, journaling, sharding
from .calibrated import load_calibrated
from .counting import factory_path, instruction_counting
from .finishing import journal_chunk
from .inert_cache import InertKeyCache, default_directory
from .options import compile_settings
from .progress import ProgressBoard, terminal_writer
from .scope_note import ScopeCounts
from .spread import spread_devices
from .state import KINDS, STATE, DeviceWork, Reporting, RunItems, RunOptions, TlbenchState
from .xdist_support import ControllerCollector, is_controller, test_only_settings
from ..search.live import ProblemSearch, load_history

T = TypeVar("T")


def _usage(call: Callable[[], T], errors: Any = ValueError) -> T:
    """``call()``, its error a ``pytest.UsageError`` with the same words."""
    try:
        return call()
    except errors as exc:
        raise pytest.UsageError(str(exc)) from None


def build_state(config: Any, registry: BackendRegistry, hidden: Any) -> TlbenchState:
    choice = config.getoption("tlbench_backend")
    _usage(lambda: registry.validate(choice), UnknownBackend)
    kind = config.getoption("--tlbench-kind")
    seed = config.getoption("--tlbench-seed")
    if seed is None:
        seed = journaling.resume_seed(config)
    board = ProgressBoard(terminal_writer(config) if hidden is None else None)  # every progress line, from one place
    children = _usage(lambda: build_processes(usable_cpus()))  # TLBENCH_BUILD_PROCESSES, read again by each device worker
    scope = config.getoption("--tlbench-scope")
    compile_rounds, compile_cap = compile_settings(scope, config.getoption("--tlbench-compile-rounds"),
                                                   config.getoption("--tlbench-compile-max-seconds"))
    policy = policy_from_options(config.getoption)
    history = _usage(lambda: load_history(policy.search_learn_from))  # read once: every searched problem learns from them
    options = RunOptions(
        backend_choice=choice, kinds=KINDS if kind == "all" else (kind,), scope=scope,
        policy=replace(policy, compile_max_seconds=compile_cap), compile_rounds=compile_rounds,
        seed=seed if seed is not None else random.SystemRandom().randrange(2**31),
        autotune_path=config.getoption("--tlbench-autotune"), test_only=tuple(test_only_settings(config)),
        calibrated=load_calibrated(profile) if (profile := config.getoption("--tlbench-profile")) else None,
        search_problem=ProblemSearch(history) if policy.search == "model" else None)
    # in-process device items build their kernels in child processes too (a 4+ CPU host)
    pool = CompilePool(progress=board.phase("prefetch", "compile prefetch", "kernels").count,
                       warmer_of=lambda backend: warmer_for(factory_path(registry, backend.name), registry.options.values, children))
    config.stash[STATE] = state = TlbenchState(
        registry=registry, options=options, devices=DeviceWork(pool=pool),
        progress=Reporting(board=board, scope_counts=ScopeCounts(scope)),
        items=RunItems(inert_cache=InertKeyCache(Path(config.getoption("--tlbench-cache-dir") or default_directory()))))
    if is_controller(config):
        config.pluginmanager.register(ControllerCollector(config, registry.traits), "tlbench-xdist-controller")
    sharding.register(config)  # --tlbench-shard=I/N: this process keeps shard I's items
    if hidden is None and not is_controller(config):
        check_devices(config.getoption("tlbench_devices"), [registry.traits(n) for n in registry.names])
    spread = spread_devices(config, hidden)
    state.options.spread_devices = max(1, len(spread))
    state.devices.interrupt.arm()  # a Ctrl-C is noted before it raises: a build it ends is interrupted, not failed
    workers = state.devices.workers = (isolation.Workers(config, registry, spread, interrupted=state.devices.interrupt,
                                                         board=board)
                                       if config.getoption("--tlbench-isolation") == "worker" else None)
    if workers is not None and not is_controller(config) and not config.option.collectonly:
        registry.worker_facts = lambda name: workers.session(name).ready_facts()  # described by its device worker
    jobs = _usage(lambda: resolve_jobs(config.getoption("--tlbench-compile-jobs"), usable_cpus(), hidden is not None,
                                       workers is not None))
    if workers is not None:
        workers.main_times_compiles = jobs <= 1  # else compile jobs' workers do (each warms up its own compiler)
    state.devices.compile_phase = CompilePhase(
        jobs=jobs, make_session=workers.compile_session if workers is not None else None,
        policy=state.options.policy, compile_rounds=state.options.compile_rounds, seed=state.options.seed, board=board,
        count=instruction_counting(config, registry, board))
    state.devices.device_phase = DevicePhase(
        **({"make_session": workers.device_session, "background": True} if workers is not None else {}),
        on_chunk=lambda pairs: journal_chunk(config.stash[STATE], config, pairs),
        devices_for=lambda backend: workers.device_count(backend.name) if workers is not None and backend.device_blocker() is None else 1,
        tick=board.tick)
    run_id = getattr(config, "workerinput", {}).get("testrunuid", str(os.getpid()))
    state.options.prefetch_lock_path = os.path.join(tempfile.gettempdir(), f"tlbench-prefetch-{run_id}.lock")
    return state
