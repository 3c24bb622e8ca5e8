"""What the plugin says about a run besides its items: the terminal summary, autotune, phases.

Contract: ``write_summary(reporter, records, setup_s, traits_of, extra_lines, title, setup_parts)``
writes the ``tlbench`` section; ``write_best_configs(config, state)`` / ``autotune_lines(state)``;
``phases_s(state)``: the JSON's ``tlbench.phases_s``.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping, Sequence

from ..core import trace
from ..results.export.best_configs import pick_best, update_best_file
from ..results.files.run_facts import facts_of
from ..results.report.summary import summary_lines
from ..results.report.table import run_table_text


def write_summary(
    reporter, records: Sequence[Mapping[str, object]], setup_s: dict[str, float], traits_of,
    extra_lines: Iterable[str] = (), title: str = "tlbench", setup_parts: dict[str, dict] | None = None,
) -> None:
    if reporter.config.getoption("verbose", 0) > 0:
        reporter.write_sep("=", f"{title}: every item")
        width = getattr(getattr(reporter, "_tw", None), "fullwidth", 200)
        for line in run_table_text(facts_of(records, traits_of), width):
            reporter.write_line(line)
    reporter.write_sep("=", f"{title} summary (every item: pytest -v, or tlbench report FILE)")
    for line in [*summary_lines(records, setup_s, setup_parts), *extra_lines]:
        reporter.write_line(line)


def write_best_configs(config, state: Any) -> None:
    collector = config.pluginmanager.get_plugin("tlbench-xdist-controller")
    if collector is not None:
        records = [o for o in collector.outcomes if o.get("status") == "timed"]
        infos = {name: next(iter(per_worker.values())) for name, per_worker in collector.machines.items() if per_worker}
    else:
        records = [o.record for _, _, o in state.records.outcomes if o.status == "timed"]
        infos = {name: b.device_info() for name, b in state.registry.loaded().items()}
    entries = pick_best(records, {name: str(info.get("accelerator")) for name, info in infos.items()})
    if entries:
        versions = {str(info.get("tilelang")) for info in infos.values()}
        update_best_file(state.options.autotune_path, entries, ", ".join(sorted(versions)) or None)
    state.records.autotune_written = [(e.problem_id, e.backend, e.case_id, e.vs_vendor) for e in entries]


def autotune_lines(state: Any) -> list[str]:
    return [f"[tlbench] best {backend} {problem_id}: {case_id}"
            f"{f', {vs_vendor:.3f}x the vendor library' if vs_vendor else ''} -> {state.options.autotune_path}"
            for problem_id, backend, case_id, vs_vendor in state.records.autotune_written]


def phases_s(state: Any) -> dict[str, float]:
    started = trace.process_start()
    out = {"start-up": state.records.startup_s} if state.records.startup_s is not None else {}
    out.update(state.devices.compile_phase.seconds)
    if started is not None:
        out["session"] = time.time() - started
    return {k: round(v, 1) for k, v in out.items() if v is not None and round(v, 1) > 0}
