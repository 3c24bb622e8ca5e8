"""The pytest glue of instruction counting: ``--tlbench-instructions*`` to an ``InstructionCounting``.

Contract: ``instruction_counting(config, registry)`` reads the options
(harness/measure/instructions.py::add_options) and returns the compile phase's ``count``
(harness/measure/count_phase.py) with the registry's backend options (as the backends got them, test plug-ins'
included), each backend's factory path, and a child environment in which the backend sees no device (its
traits' ``device_env("")``); a bad ``--tlbench-instructions-subset`` or ``--tlbench-instructions-jobs`` is a
``pytest.UsageError``; ``board`` is the run's progress board (a line per backend's count).
``mode_for_scope(mode, scope)``: the default ``auto`` is ``hardware`` in the quick scope (its point is a quick
answer: callgrind takes ~50x the lowering), as it is everywhere else asked for.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..measure.cpu_plan import usable_cpus
from ..measure.count_phase import InstructionCounting
from ..measure.instructions import count_jobs
from ..measure.worker_spec import factory_ref


def factory_path(registry: Any, name: str) -> str | None:
    """``module:qualname`` of backend ``name``'s factory, or None where it is not importable by name."""
    try:
        return registry.factory_path(name) or factory_ref(registry.factories[name]())
    except ValueError:
        return None


def mode_for_scope(mode: str, scope: str) -> str:
    return "hardware" if mode == "auto" and scope == "quick" else mode


def instruction_counting(config: Any, registry: Any, board: Any = None) -> InstructionCounting:
    subset = config.getoption("--tlbench-instructions-subset")
    if subset < 1:
        raise pytest.UsageError(f"--tlbench-instructions-subset must be >= 1, got {subset}")
    try:
        jobs = count_jobs(config.getoption("--tlbench-instructions-jobs"), usable_cpus())
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    return InstructionCounting(
        mode=mode_for_scope(config.getoption("--tlbench-instructions"), config.getoption("--tlbench-scope")),
        subset=subset,
        device=config.getoption("--tlbench-instructions-device"),
        factory_of=lambda name: factory_path(registry, name),
        options=dict(registry.options.values),
        env_of=lambda name: registry.traits(name).device_env(""),
        board=board,
        jobs=jobs,
    )
