"""Autotune at the end of a run: the fastest correct config per problem, into the best-configs file.

Contract: ``write_best_configs(config, state)`` writes once per run, from all its items: in
the pytest-xdist controller from what every worker shipped (``ControllerCollector``), and
without xdist from this process's outcomes; a worker never writes (the caller skips it).
The device of each backend keys the entries (``pick_best``); ``state.records.autotune_written``
records what was written and ``autotune_lines(state)`` says so for the terminal.
"""

from __future__ import annotations

from typing import Any

from ..results.export.best_configs import pick_best, update_best_file


def write_best_configs(config, state: Any) -> None:
    collector = config.pluginmanager.get_plugin("tlbench-xdist-controller")
    if collector is not None:
        records = [o for o in collector.outcomes if o.get("status") == "timed"]
        infos = {name: next(iter(per_worker.values())) for name, per_worker in collector.machines.items() if per_worker}
    else:
        records = [o.record for _, _, o in state.records.outcomes if o.status == "timed"]
        infos = {name: b.device_info() for name, b in state.registry.loaded().items()}
    devices = {name: str(info.get("accelerator")) for name, info in infos.items()}
    versions = {str(info.get("tilelang")) for info in infos.values()}
    entries = pick_best(records, devices)
    if entries:
        update_best_file(state.options.autotune_path, entries, ", ".join(sorted(versions)) or None)
    state.records.autotune_written = [(e.problem_id, e.backend, e.case_id, e.vs_vendor) for e in entries]


def autotune_lines(state: Any) -> list[str]:
    lines = []
    for problem_id, backend, case_id, vs_vendor in state.records.autotune_written:
        ratio = f", {vs_vendor:.3f}x the vendor library" if vs_vendor else ""
        lines.append(f"[tlbench] best {backend} {problem_id}: {case_id}{ratio} -> {state.options.autotune_path}")
    return lines
