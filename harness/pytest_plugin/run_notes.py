"""What the plugin says about a run besides its items: the summary's closing lines, and where
the run's wall time went.

Contract: ``summary_extra(state, records, results_path)`` is the lines after the summary blocks: the journal's
and the results file's notes, where the results went (``results_path``, given when pytest-benchmark's table
was quieted), the search-space diagnostics worth a word, autotune, whether compile work overlapped device
timing, and for the quick scope what the full scope adds.  ``phases_s(state)`` is the JSON's
``tlbench.phases_s``: start-up (the process's start to the end of collection), each backend's compile setup,
rounds and count, and the whole session so far, in wall seconds.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from ..core import trace
from .autotune import autotune_lines
from .options import COMPILE_ROUNDS
from .overlap_start import overlap_line


def summary_extra(state: Any, records: Sequence[dict[str, Any]], results_path: Any) -> list[str]:
    extra = list(state.records.journal.summary_lines() if state.records.journal else []) + list(state.records.file_notes)
    if results_path is not None:
        extra.append(f"[tlbench] results: {results_path} (pytest-benchmark's per-item table: -v)")
    extra += [diag.summary() for diag in state.items.diagnostics if diag.verdict != "ok" or diag.inert_keys]
    extra += autotune_lines(state)
    line = overlap_line(state)
    if line is not None:
        extra.append(line)
    if state.progress.scope_counts is not None:
        extra += state.progress.scope_counts.lines(records, state.options.compile_rounds, COMPILE_ROUNDS, state.options.policy.compile_max_seconds)
    return extra


def phases_s(state: Any) -> dict[str, float]:
    started = trace.process_start()
    out = {"start-up": state.records.startup_s} if state.records.startup_s is not None else {}
    out.update(state.devices.compile_phase.seconds)
    if started is not None:
        out["session"] = time.time() - started
    return {k: round(v, 1) for k, v in out.items() if v is not None and round(v, 1) > 0}  # a part that took nothing is left out
