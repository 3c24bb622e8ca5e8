"""The pytest glue of instruction counting: ``--tlbench-instructions*`` to an ``InstructionCounting``.

Contract: ``instruction_counting(config, registry, board)``: the compile phase's ``count`` from the
options, with a child environment that sees no device (a bad subset or jobs value:
``pytest.UsageError``).  ``mode_for_scope(mode, scope)``: ``auto`` is ``hardware`` in quick.
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
        subset=subset, device=config.getoption("--tlbench-instructions-device"),
        factory_of=lambda name: factory_path(registry, name), options=dict(registry.options.values),
        env_of=lambda name: registry.traits(name).device_env(""), board=board, jobs=jobs)
