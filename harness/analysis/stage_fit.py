"""The pipeline model beside a stage group's numbers (``harness.analysis.timeline_model``).

Contract: ``with_model(group, records, load_pipes)`` returns the group with its model: from a
scheduled K loop the predicted K-loop cycles and II per num_stages; else the timeline fitted to
the device medians; else a note why there is none.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping
from . import timeline_fit
from . import timeline_model as models
from .stage_plan import k_loop, relative_error_of
from .stage_types import LoopLatencies, TileGroup
from ..results.report.table import format_seconds


def with_model(group: TileGroup, recs: list[Mapping[str, Any]], load_pipes: frozenset[str]) -> TileGroup:
    loops = {r["config"].get("num_stages"): k_loop(r.get("plan") or {}) for r in recs if r["config"]["loop_form"] == "auto"}
    if any(loop.get("tasks") for loop in loops.values()):
        return _with_schedule_prediction(group, loops, load_pipes)
    if group.basis == "device":
        return _with_fit(group)
    return replace(group, model_note="no device times and no schedule model in this file: nothing to fit")


def _with_fit(group: TileGroup) -> TileGroup:
    times = {r.num_stages: r.measured_s for r in group.rows if r.loop_form == "auto" and (r.num_stages or 0) >= 1}
    usable = {s: t for s, t in sorted(times.items()) if s is not None and t}
    if len(usable) < 2:
        have = ", ".join(f"num_stages={s}: {format_seconds(t)}" for s, t in usable.items()) or "none"
        return replace(group, model_note=f"no pipeline model: it is fitted to the device times of 2 or more num_stages >= 1, "
                                         f"and this tile has {len(usable)} ({have})")
    if group.iterations is None:
        return replace(group, model_note="no pipeline model: the number of K steps per block is not known for this kernel "
                                         "(its family does not say how many times the pipelined loop runs)")
    try:
        fit = timeline_fit.fit_latency_ratio(times, group.iterations)
    except ValueError as exc:  # a range the search cannot cover: say so in words, never a raw repr
        return replace(group, model_note=f"no pipeline model: the copy -> compute timeline cannot be fitted to these times ({exc})")
    without_1 = None
    if sum(1 for s, t in times.items() if s >= 2 and t) >= 2:
        without_1 = timeline_fit.fit_latency_ratio({s: t for s, t in times.items() if s >= 2}, group.iterations)
    rows = tuple(replace(r, predicted=fit.predicted.get(r.num_stages), relative_error=fit.relative_error.get(r.num_stages))
                 if r.loop_form == "auto" else r for r in group.rows)
    return replace(group, rows=rows, fit=fit, fit_without_1=without_1)


def _with_schedule_prediction(group: TileGroup, loops: dict[Any, Mapping[str, Any]], load_pipes: frozenset[str]) -> TileGroup:
    stages = sorted(s for s, loop in loops.items() if s is not None and s >= 1 and loop.get("tasks"))
    source = loops[stages[0]] if stages else next(loop for loop in loops.values() if loop.get("tasks"))
    try:
        lat = loop_latencies(source, load_pipes)
    except ValueError as exc:
        return replace(group, model_note=f"no model prediction: {exc}")
    iterations = int(source.get("trip_count") or group.iterations or 0)
    if not stages or iterations < 1:
        return replace(group, latencies=lat, model_note="no auto num_stages >= 1 with a scheduled K loop to predict")
    pred = timeline_fit.predict_from_latencies(lat.latency, lat.compute, iterations, stages, issue=lat.issue)
    by_stage = {r.num_stages: r for r in pred.rows}
    def predicted(row):
        p = by_stage.get(row.num_stages) if row.loop_form == "auto" else None
        return row if p is None else replace(row, predicted=p.makespan, predicted_ii=p.steady_interval,
                                             relative_error=relative_error_of(p.makespan, row.loop_cycles))

    rows = [predicted(row) for row in group.rows]
    return replace(group, rows=tuple(rows), prediction=pred, latencies=lat, iterations=iterations)


def loop_latencies(loop: Mapping[str, Any], load_pipes: frozenset[str]) -> LoopLatencies:
    """Per-K-step model cycles of a scheduled loop's tasks: copies on ``load_pipes`` are producers, the rest
    compute; copies on one pipe serialize (the last lands ``sum(ii) + min(latency - ii)`` after the first issue),
    pipes run in parallel."""
    copies, computes = [], []
    for task in loop.get("tasks") or ():
        pipe = "+".join(task.get("pipes") or ["?"])
        entry = (str(task.get("kind", "?")), pipe, float(task["latency"]), float(task.get("ii") or task["latency"]))
        is_load = entry[0].startswith("copy") and set(task.get("pipes") or ()) <= load_pipes
        (copies if is_load else computes).append(entry)
    if not copies or not computes:
        raise ValueError(f"K loop {loop.get('loop_var', '?')} needs both operand copies (on {sorted(load_pipes)}) and "
                         f"compute tasks; got copies {[c[0] for c in copies]}, compute {[c[0] for c in computes]}")
    by_pipe: dict[str, list] = {}
    for entry in copies:
        by_pipe.setdefault(entry[1], []).append(entry)
    arrival = {p: sum(e[3] for e in es) + min(e[2] - e[3] for e in es) for p, es in by_pipe.items()}
    busy = {p: sum(e[3] for e in es) for p, es in by_pipe.items()}
    copy_pipe = max(busy, key=lambda p: busy[p])
    return LoopLatencies(latency=max(arrival.values()), compute=sum(e[2] for e in computes), issue=busy[copy_pipe],
                         copy_pipe=copy_pipe, copies=tuple(copies), computes=tuple(computes))


def steady_ii(lat: LoopLatencies, num_stages: int) -> float:
    return models.steady_interval_bound(lat.issue, lat.latency, lat.compute, num_stages)
