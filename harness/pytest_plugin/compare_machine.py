"""``--benchmark-compare``'s machine check, made when tlbench's part of the machine info is known.

pytest-benchmark compares the saved run's ``machine_info`` with this run's as it configures, before any
tlbench backend is loaded, so the keys tlbench adds (its ``tlbench`` block, the ``accelerator`` line, each
backend's ``machine_info_keys``) are missing then and two runs of one machine always "differ".  Contract:
- ``MachineCompare(owned_keys)`` is a plugin object, registered only when pytest-benchmark is
  active and ``--benchmark-compare`` was given.  Around pytest-benchmark's own
  ``pytest_benchmark_compare_machine_info`` it lends the current machine info the saved run's
  values of the owned keys (so that check judges pytest-benchmark's own keys: cpu, python,
  system ...) and puts the current dict back afterwards; it keeps the saved run's owned values.
  A saved run with none of the owned keys (a run without tlbench items) is compared untouched.
- ``finish(config, extra)`` (at session end, once tlbench's backends reported) asks pytest-benchmark
  for the complete machine info and, where an owned key differs from a saved run's, warns with
  pytest-benchmark's own words ("Benchmark machine_info is different ...") through its logger.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

_MISSING = object()


class MachineCompare:
    def __init__(self, owned_keys: tuple[str, ...]) -> None:
        self.owned_keys = owned_keys
        self.saved: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (saved run's owned values, its whole machine_info)

    @pytest.hookimpl(wrapper=True)
    def pytest_benchmark_compare_machine_info(self, config, benchmarksession, machine_info, compared_benchmark):
        saved_info = compared_benchmark.get("machine_info") or {}
        saved = {k: saved_info[k] for k in self.owned_keys if k in saved_info}
        if not saved:
            return (yield)
        self.saved.append((copy.deepcopy(saved), saved_info))
        current = {k: machine_info.get(k, _MISSING) for k in self.owned_keys}
        for key in self.owned_keys:
            machine_info.pop(key, None)
        machine_info.update(copy.deepcopy(saved))
        try:
            return (yield)
        finally:
            for key, value in current.items():
                machine_info.pop(key, None)
                if value is not _MISSING:
                    machine_info[key] = value

    def finish(self, config, extra: dict[str, Any]) -> None:
        """``extra``: what the xdist controller adds to the merged file's machine info."""
        session = getattr(config, "_benchmarksession", None)
        if not self.saved or session is None:
            return
        from pytest_benchmark.utils import consistent_dumps

        info = config.hook.pytest_benchmark_generate_machine_info(config=config)
        config.hook.pytest_benchmark_update_machine_info(config=config, machine_info=info)
        info.update(extra)
        mine = {k: info[k] for k in self.owned_keys if k in info}
        for saved, whole in self.saved:
            if consistent_dumps(saved) != consistent_dumps(mine):
                session.logger.warning(
                    f"Benchmark machine_info is different. Current: {consistent_dumps(info)} VS saved: "
                    f"{consistent_dumps(whole)} (location: {session.storage.location})."
                )
        self.saved.clear()
