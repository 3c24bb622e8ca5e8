"""When a run's workers start: as early as the run is known to be a tlbench run.

Contract: ``start_workers_early(config, state, at_configure=False)`` starts the workers asked for
so their imports overlap collection: at configure for named backends, for ``auto`` at the first
module that ``looks_like_suite`` (it assigns ``SWEEP`` and imports tlbench; parsed, not imported).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from ..core.registry import AUTO
from .xdist_support import is_controller, worker_index

_CANDIDATE = (re.compile(r"^SWEEP\s*=", re.M), re.compile(r"^(from|import)\s+tlbench\b", re.M))


def looks_like_suite(path: Any) -> bool:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except (OSError, TypeError, ValueError):
        return False
    if not all(pattern.search(text) for pattern in _CANDIDATE):
        return False
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return False
    assigns = any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SWEEP" for t in node.targets)
                  for node in body)
    modules = [m for node in body for m in ([node.module or ""] if isinstance(node, ast.ImportFrom)
               else [a.name for a in node.names] if isinstance(node, ast.Import) else [])]
    return assigns and any(m.split(".")[0] == "tlbench" for m in modules)


def start_workers_early(config: Any, state: Any, at_configure: bool = False) -> None:
    """Before a suite's imports: on the H200 the first suite's took 7.9 s, then collection waited
    2.4 s more for the device worker."""
    if state.devices.workers is None or is_controller(config) or config.option.collectonly or state.devices.workers_started:
        return
    names = state.registry.validate(state.options.backend_choice)
    if AUTO in names and at_configure:
        return
    state.devices.workers_started = True
    names = state.registry.names if AUTO in names else names
    state.devices.workers.start(names)
    jobs = state.devices.compile_phase.jobs
    if jobs > 1 and worker_index() is None:  # a big host's compile jobs (an xdist worker times its compile items one by one)
        for name in names:
            state.devices.workers.start_compile_jobs(name, jobs)
