"""The ``--benchmark-json`` file of a tlbench run: never an earlier run's, never partial unmarked.

Contract:
- ``set_aside_previous(config)``: a results file already at the ``--benchmark-json`` path when a run with
  tlbench items starts is renamed to ``<name>.previous`` (replacing an older ``.previous``), so a run killed
  before it writes leaves no file that reads as its own; the new file is written atomically at the end
  (journaling.py).  Returns the line saying so, or None.
- ``partial_note(state, exitstatus)``: the ``tlbench.partial`` object of this run's JSON, or
  None for a run that ended and has an outcome for every collected tlbench item: the reason
  (interrupted, stopped early, items without an outcome), whether the run ended, items
  collected, in the file and missing (their ids), and the journal that can finish it
  (``--tlbench-resume``).  ``tlbench compare`` refuses a partial file unless told.
- ``ExitStatusNote(state)``: a plugin whose ``pytest_sessionfinish`` wrapper (outermost) keeps
  the session's exit status in ``state.records.exitstatus`` before pytest-benchmark's own wrapper
  writes the JSON, so ``partial_note`` knows an interrupted run.
- ``write_if_nothing_timed(config, state)``: pytest-benchmark writes no JSON when no item was
  timed ("Not saving anything"); a tlbench run whose every item failed or skipped still writes
  its file (with ``tlbench.failed`` / ``skipped``), so the gate reads the failures as a
  regression instead of a missing file.  Returns the path written, or None.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .bench_adapter import result_json_path, write_nothing_timed_json
from ..results.files.journal import atomic_write_text

PREVIOUS_SUFFIX = ".previous"


def set_aside_previous(config: Any) -> str | None:
    path = result_json_path(config)
    if path is None or not path.is_file() or path.stat().st_size == 0:
        return None
    aside = path.with_name(path.name + PREVIOUS_SUFFIX)
    os.replace(path, aside)
    return f"[tlbench] {path} held an earlier run: moved to {aside} (this run writes {path} when it ends)"


def _reason(exitstatus: int | None, missing: int) -> str | None:
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return "interrupted"
    if missing:
        return f"{missing} collected items have no outcome (the session stopped early)"
    return None


def partial_note(state: Any, exitstatus: int | None) -> dict[str, Any] | None:
    collected = list(state.items.collected_ids)
    done = {item.item_id for _, item, _ in state.records.outcomes}
    missing = [i for i in collected if i not in done]
    reason = _reason(exitstatus, len(missing))
    if reason is None:
        return None
    journal = state.records.journal.path if state.records.journal is not None else None
    return {
        "reason": reason,
        "run_ended": exitstatus != pytest.ExitCode.INTERRUPTED,
        "items_collected": len(collected),
        "items_in_file": len(done),
        "missing": missing,
        "journal": str(journal) if journal else None,
    }


def write_if_nothing_timed(config: Any, state: Any) -> Path | None:
    if not state.records.outcomes or any(o.status == "timed" for _, _, o in state.records.outcomes):
        return None
    return write_nothing_timed_json(config, lambda path, text: atomic_write_text(path, text))


class ExitStatusNote:
    def __init__(self, state: Any) -> None:
        self.state = state

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.state.records.exitstatus = int(exitstatus)
        yield
