"""When a run's workers start: as early as the run is known to be a tlbench run.

Contract: ``start_workers_early(config, state, at_configure=False)`` starts the workers of the backends asked
for before this process loads the backends, so their imports and device start-up overlap collection: at
configure for backends named on the command line; for ``auto`` at the first tlbench suite about to be
collected (``pytest_collectstart`` of a module that ``looks_like_suite``) or, failing that, at its first
``pytest_generate_tests``, then of every registered backend (choosing among them loads them, and a backend
built from its worker's report waits for that worker).  Unused ones end after collection (``keep_only``).
Where the compile phase runs several jobs (``--tlbench-compile-jobs`` above 1) each backend's compile-job
workers start then too, at nice 10 (harness/pytest_plugin/isolation.py); those no phase takes end after
collection (overlap_start.start_compile_jobs_ahead).  A run without a tlbench suite starts none.
``looks_like_suite(path)``: the file assigns ``SWEEP`` and imports from ``tlbench`` at module level (its text
matched, then its syntax tree; read, never imported; unreadable or unparsable: not a suite).  It only decides
how early: a suite that does not look like one starts the workers at its ``pytest_generate_tests``.

Why before the module's import: a suite imports its kernels' modules (tilelang's eager parse of upstream
example files, torch); on the H200 the first suite's imports took 7.9 s, then collection waited 2.4 s more for
the device worker's report.  Compile-job workers started at collection's end spent the compile phase's first
5-9 s importing (16 of them at once).
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
    """See the contract."""
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
    imports = any((isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tlbench")
                  or (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tlbench" for a in node.names))
                  for node in body)
    return assigns and imports


def start_workers_early(config: Any, state: Any, at_configure: bool = False) -> None:
    """See the contract."""
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
