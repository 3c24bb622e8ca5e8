"""The ``--benchmark-json`` file of a tlbench run: never an earlier run's, never partial unmarked.

Contract:
- ``set_aside_previous(config)``: a results file already at the path when a run with tlbench items
  starts is renamed to ``<name>.previous``; returns the line saying so, or None.
- ``partial_note(state, exitstatus)``: the JSON's ``tlbench.partial`` (a ``PartialNote``), or None
  for a run that ended with an outcome for every collected tlbench item.
- ``ExitStatusNote(state)``: an outermost ``pytest_sessionfinish`` wrapper keeping the exit status
  in ``state.records.exitstatus`` before pytest-benchmark writes the JSON.
- ``write_if_nothing_timed(config, state)``: a run whose every item failed or skipped still writes
  its file (pytest-benchmark writes none), so a gate reads a regression, not a missing file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..results.files.journal import atomic_write_text
from .bench_adapter import result_json_path, write_nothing_timed_json


@dataclass(frozen=True)
class PartialNote:
    reason: str
    run_ended: bool
    items_collected: int
    items_in_file: int
    missing: list[str]
    journal: str | None  # the journal ``--tlbench-resume`` finishes the run from


def set_aside_previous(config: Any) -> str | None:
    path = result_json_path(config)
    if path is None or not path.is_file() or path.stat().st_size == 0:
        return None
    aside = path.with_name(path.name + ".previous")
    os.replace(path, aside)
    return f"[tlbench] {path} held an earlier run: moved to {aside} (this run writes {path} when it ends)"


def partial_note(state: Any, exitstatus: int | None) -> PartialNote | None:
    collected = list(state.items.collected_ids)
    done = {item.item_id for _, item, _ in state.records.outcomes}
    missing = [i for i in collected if i not in done]
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        reason = "interrupted"
    elif missing:
        reason = f"{len(missing)} collected items have no outcome (the session stopped early)"
    else:
        return None
    journal = state.records.journal.path if state.records.journal is not None else None
    return PartialNote(reason, exitstatus != pytest.ExitCode.INTERRUPTED, len(collected), len(done), missing,
                       str(journal) if journal else None)


def write_if_nothing_timed(config: Any, state: Any) -> Path | None:
    if not state.records.outcomes or any(o.status == "timed" for _, _, o in state.records.outcomes):
        return None
    return write_nothing_timed_json(config, atomic_write_text)


class ExitStatusNote:
    def __init__(self, state: Any) -> None:
        self.state = state

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.state.records.exitstatus = int(exitstatus)
        yield
