"""``tlbench report --stages FILE``: how many pipeline stages to use, and why.

Contract
--------
* ``build_stage_report(bench_json) -> StageReport`` reads a pytest-benchmark document
  (parsed JSON) holding tlbench records of a stage sweep and returns pure data: one
  ``TileGroup`` per (backend, kernel, problem, tile), each with one ``StageRow`` per
  ``T.Pipelined`` variant (``auto`` num_stages ascending, then ``manual``, ``serial``; failed
  and skipped items appear with their reason), the pipeline model beside the numbers, and
  a ``Verdict``.  It raises ``StageReportError`` (one line saying what to do) when the
  document holds no stage-sweep records.  Nothing is printed, nothing is drawn.
* Two kinds of number, never mixed in one value:

  - device time (``measured_s``): the median of a ``device`` record, seconds;
  - model cycles (``modeled_cycles``, ``loop_cycles``, ``ii_cycles``): tilelang's Ascend
    ``EstimateLatency`` + Z3 schedule of a record's plan.  These are a model, not a
    measurement, and every printed cell says so.

  A group's speedups and recommendation use device time when it has any, else modeled
  cycles (``TileGroup.basis``: ``"device"`` / ``"model"`` / ``"none"``).
* The model beside the numbers is ``harness.analysis.timeline_model``' ``copy -> compute`` timeline:

  - NVIDIA: ``fit_latency_ratio`` fitted to the measured medians of ``auto`` num_stages >= 1
    (iterations = K steps of one block); ``predicted`` / ``relative_error`` per stage are
    the fit's.  On Hopper num_stages=1 is not "the same loop with one buffer": it switches
    to the warp-specialized TMA path; the verdict says so, in the direction it sees.
  - Ascend: latency, compute and copy-pipe occupancy per K step come from the
    ``EstimateLatency`` task latencies of the scheduled K loop (``loop_latencies``), and
    ``predict_from_latencies`` predicts the K loop's cycles and II per num_stages, compared
    with what Z3 scheduled.
* ``Verdict.recommended``: ``models.recommend_num_stages`` (smallest ``auto`` num_stages
  within 2 % of the best) on the group's basis, plus the model's min sufficient depth and
  one sentence of why; ``notes`` hold what else an engineer should know (Hopper stage 1,
  a best point at the deepest depth tried, Z3 allocating fewer buffers than asked).
* ``format_stage_report(report)`` renders the report as text lines; ``main(path,
  png_dir=None)`` loads a results file (``harness.results.store``), prints, optionally writes the
  space-time PNGs (the backend's schedule figure, or ``harness.analysis.fit_plot``), and returns 0, or 2 after one line on
  stderr when the input cannot be used.  No global state.
"""

from __future__ import annotations

import re
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from harness.analysis import timeline_model as models
from harness.core.backend_traits import TraitsCatalog
from harness.core.record import EXTRA_KEY, records_of
from harness.results.table import format_seconds
from harness.results.store import ResultsError, load_results, testbed_of
from harness.core.cases import DTYPE_SHORT

TOLERANCE = 0.02  # recommend: smallest num_stages within 2 % of the best
STAGE_KEYS = ("loop_form", "num_stages")  # config fields that vary inside one tile group
LEFT_ALIGNED = frozenset({"stages", "path", "buffers", "status"})


class StageReportError(ValueError):
    """The document holds nothing a stage report can use; ``str()`` says what to do."""


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class LoopLatencies:
    """Per-K-step durations of an Ascend loop, from ``EstimateLatency`` (model cycles).

    ``latency``: issue of the first operand copy -> last operand in place (copies on one
    pipe serialize, each holding its pipe for its ``ii``); ``issue``: cycles the busiest
    copy pipe is held per step (``sum(ii)``); ``compute``: latency of the compute tasks
    run back to back.  ``copies`` / ``computes``: ``(name, pipe, latency, ii)``.
    """

    latency: float
    compute: float
    issue: float
    copy_pipe: str
    copies: tuple[tuple[str, str, float, float], ...]
    computes: tuple[tuple[str, str, float, float], ...]


@dataclass(frozen=True)
class StageRow:
    """One ``T.Pipelined`` variant of a tile (see the module docstring for the units)."""

    label: str  # "0".."4" for auto, "manual", "serial"
    loop_form: str
    num_stages: int | None
    case_id: str
    status: str  # "ok" | "failed (<stage>): ..." | "skipped: ..."
    path: str  # the pipeline the compiler chose
    versions: str  # buffer versions of the pipelined operands, "A/B"
    measured_s: float | None = None  # device median, seconds
    method: str = ""
    modeled_cycles: float | None = None  # Z3 cycles per core (model)
    loop_cycles: float | None = None  # Z3 cycles of the K loop (model)
    ii_cycles: float | None = None  # Z3 initiation interval of the K loop (model)
    speedup_vs_1: float | None = None  # on the group's basis
    speedup_vs_0: float | None = None
    predicted: float | None = None  # NVIDIA: seconds (fit); Ascend: K-loop cycles (model)
    predicted_ii: float | None = None  # Ascend: timeline model's steady interval (cycles)
    relative_error: float | None = None  # (predicted - reference) / reference
    onchip_scope: str = ""
    onchip_bytes: int | None = None
    onchip_limit: int | None = None


@dataclass(frozen=True)
class Verdict:
    recommended: int | None  # smallest auto num_stages within 2 % of the best
    best: int | None
    min_sufficient_depth: int | None  # model: 1 + ceil(latency / compute)
    model_recommended: int | None  # model: smallest depth within 2 % of its best
    budget_max_stages: int | None  # deepest num_stages whose buffers fit on chip
    why: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TileGroup:
    backend: str
    testbed: str
    kernel: str
    problem: str  # "8192x8192x8192 f16"
    tile: str  # "128x256x64 t256"
    iterations: int | None  # K steps per block (the model's iterations)
    basis: str  # "device" | "model" | "none"
    rows: tuple[StageRow, ...]
    fit: models.Fit | None = None  # NVIDIA
    fit_without_1: models.Fit | None = None  # NVIDIA, num_stages >= 2 only (diagnostic)
    prediction: models.Prediction | None = None  # Ascend
    latencies: LoopLatencies | None = None  # Ascend
    model_note: str = ""  # why there is no model, when there is none
    verdict: Verdict | None = None
    scheduled: bool = False  # the plans carry a compiler's schedule model (cycles, a model)

    @property
    def key(self) -> str:
        """File-name form: ``ascend-gemm-8192x8192x8192-f16-128x256x64-t256``."""
        return re.sub(r"[^A-Za-z0-9]+", "-", f"{self.backend}-{self.kernel}-{self.problem}-{self.tile}").strip("-")

    def row(self, num_stages: int) -> StageRow | None:
        return next((r for r in self.rows if r.loop_form == "auto" and r.num_stages == num_stages), None)


@dataclass(frozen=True)
class StageReport:
    groups: tuple[TileGroup, ...]
    ignored: tuple[str, ...] = ()  # items left out, with why

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- build


def build_stage_report(bench_json: Mapping[str, Any], traits_of: Callable[[str], Any] | None = None) -> StageReport:
    """See the module docstring.  ``traits_of``: backend name -> its ``BackendTraits``
    (default: the installed backends'; unknown names get defaults)."""
    traits_of = traits_of or TraitsCatalog.from_entry_points().get
    if not isinstance(bench_json, Mapping) or not isinstance(bench_json.get("benchmarks"), list):
        raise StageReportError("not pytest-benchmark output (no 'benchmarks' list); pass the file written by --benchmark-json")
    items = _stage_items(bench_json)
    ignored = [f"{name}: no tile config (vendor library item)" for name in items.pop(None, [])]
    if not items:
        raise StageReportError(
            "no stage-sweep records (tlbench items with a tile config and a loop form); "
            "run suites/test_stages.py with --benchmark-json"
        )
    groups = [_build_group(bench_json, key, recs, traits_of(key[0])) for key, recs in items.items()]
    groups.sort(key=lambda g: (g.backend, g.kernel, _problem_sort(g.problem), g.tile))
    return StageReport(groups=tuple(groups), ignored=tuple(ignored))


def _stage_items(doc: Mapping[str, Any]) -> dict[Any, list]:
    """Records (timed, failed, skipped) grouped by tile; key None: items with no config."""
    top = doc.get(EXTRA_KEY) or {}
    everything = [*records_of(dict(doc)), *(top.get("failed") or ()), *(top.get("skipped") or ())]
    groups: dict[Any, list] = {}
    for rec in everything:
        config = rec.get("config")
        if not isinstance(config, Mapping) or "loop_form" not in config:
            groups.setdefault(None, []).append(rec.get("case_id") or rec.get("name") or "?")
            continue
        tile = tuple(sorted((k, v) for k, v in config.items() if k not in STAGE_KEYS))
        problem = tuple(sorted((rec.get("problem") or {}).items()))
        key = (rec.get("backend", "?"), rec.get("kernel", "?"), rec.get("label"), problem, tile)
        groups.setdefault(key, []).append(rec)
    return groups


def _build_group(doc: Mapping[str, Any], key: tuple, recs: list[dict[str, Any]], traits: Any) -> TileGroup:
    backend, kernel, label, _, _ = key
    chosen = _one_record_per_variant(recs)
    first = chosen[0]
    config, problem = first["config"], first.get("problem") or {}
    rows = [_row(r) for r in chosen]
    basis = "device" if any(r.measured_s for r in rows) else "model" if any(r.modeled_cycles for r in rows) else "none"
    rows = _with_speedups(rows, basis)
    iterations = _iterations(problem, config, chosen)
    group = TileGroup(
        backend=backend,
        testbed=testbed_of(dict(doc), backend, traits).describe(),
        kernel=kernel + (f" [{label}]" if label else ""),
        problem=_problem_label(problem),
        tile=_tile_label(config),
        iterations=iterations,
        basis=basis,
        rows=tuple(rows),
        scheduled=any((r.get("plan") or {}).get("schedule_model") for r in chosen),
    )
    group = _with_model(group, chosen, traits.load_pipes)
    return replace(group, verdict=_verdict(group, chosen))


def _one_record_per_variant(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A device record beats a compile record, a timed one beats a failed or skipped one;
    ordered auto (by num_stages), manual, serial."""

    def rank(rec: dict[str, Any]) -> tuple[int, int]:
        return (rec.get("status", "ok") == "ok", rec.get("kind") == "device")

    best: dict[tuple, dict[str, Any]] = {}
    for rec in recs:
        variant = (rec["config"]["loop_form"], rec["config"].get("num_stages"))
        if variant not in best or rank(rec) > rank(best[variant]):
            best[variant] = rec
    order = {"auto": 0, "manual": 1, "serial": 2}
    return sorted(best.values(), key=lambda r: (order.get(r["config"]["loop_form"], 3), r["config"].get("num_stages") or 0))


def _row(rec: dict[str, Any]) -> StageRow:
    config, plan = rec["config"], rec.get("plan") or {}
    loop = _k_loop(plan)
    model = plan.get("schedule_model") or {}
    scope, used, limit = _onchip(plan)
    timed = rec.get("status", "ok") == "ok"
    return StageRow(
        label=str(config["num_stages"]) if config["loop_form"] == "auto" else config["loop_form"],
        loop_form=config["loop_form"],
        num_stages=config.get("num_stages"),
        case_id=rec.get("case_id", "?"),
        status=_status(rec),
        path=_path_label(plan),
        versions="/".join(str(b.get("versions")) for b in _pipelined_buffers(plan)) or "-",
        measured_s=(rec.get("summary") or {}).get("median") if timed and rec.get("kind") == "device" else None,
        method=rec.get("method", "") if rec.get("kind") == "device" else "",
        modeled_cycles=model.get("modeled_cycles_per_core"),
        loop_cycles=loop.get("modeled_cycles"),
        ii_cycles=loop.get("ii"),
        onchip_scope=scope,
        onchip_bytes=used,
        onchip_limit=limit,
    )


def _with_speedups(rows: list[StageRow], basis: str) -> list[StageRow]:
    def value(row: StageRow | None) -> float | None:
        if row is None:
            return None
        return row.measured_s if basis == "device" else row.modeled_cycles if basis == "model" else None

    def at(stages: int) -> float | None:
        return value(next((r for r in rows if r.loop_form == "auto" and r.num_stages == stages), None))

    t1, t0 = at(1), at(0)
    out = []
    for row in rows:
        t = value(row)
        out.append(replace(row, speedup_vs_1=_ratio(t1, t), speedup_vs_0=_ratio(t0, t)))
    return out


# --------------------------------------------------------------------------- models


def _with_model(group: TileGroup, recs: list[dict[str, Any]], load_pipes: frozenset[str]) -> TileGroup:
    loops = {r["config"].get("num_stages"): _k_loop(r.get("plan") or {}) for r in recs if r["config"]["loop_form"] == "auto"}
    if any(loop.get("tasks") for loop in loops.values()):
        return _with_schedule_prediction(group, loops, load_pipes)
    if group.basis == "device":
        return _with_fit(group)
    return replace(group, model_note="no device times and no schedule model in this file: nothing to fit")


def _with_fit(group: TileGroup) -> TileGroup:
    times = {r.num_stages: r.measured_s for r in group.rows if r.loop_form == "auto" and (r.num_stages or 0) >= 1}
    if group.iterations is None:
        return replace(group, model_note="K / block_K unknown: cannot size the model")
    try:
        fit = models.fit_latency_ratio(times, group.iterations)
    except ValueError as exc:
        return replace(group, model_note=f"no model fit: {exc}")
    without_1 = None
    if sum(1 for s, t in times.items() if s >= 2 and t) >= 2:
        without_1 = models.fit_latency_ratio({s: t for s, t in times.items() if s >= 2}, group.iterations)
    rows = tuple(
        replace(r, predicted=fit.predicted.get(r.num_stages), relative_error=fit.relative_error.get(r.num_stages))
        if r.loop_form == "auto" else r
        for r in group.rows
    )
    return replace(group, rows=rows, fit=fit, fit_without_1=without_1)


def _with_schedule_prediction(group: TileGroup, loops: dict[Any, dict[str, Any]], load_pipes: frozenset[str]) -> TileGroup:
    stages = sorted(s for s, loop in loops.items() if s is not None and s >= 1 and loop.get("tasks"))
    source = loops[stages[0]] if stages else next(loop for loop in loops.values() if loop.get("tasks"))
    try:
        lat = loop_latencies(source, load_pipes)
    except ValueError as exc:
        return replace(group, model_note=f"no model prediction: {exc}")
    iterations = int(source.get("trip_count") or group.iterations or 0)
    if not stages or iterations < 1:
        return replace(group, latencies=lat, model_note="no auto num_stages >= 1 with a scheduled K loop to predict")
    pred = models.predict_from_latencies(lat.latency, lat.compute, iterations, stages, issue=lat.issue)
    by_stage = {r.num_stages: r for r in pred.rows}
    rows = []
    for row in group.rows:
        p = by_stage.get(row.num_stages) if row.loop_form == "auto" else None
        if p is None:
            rows.append(row)
            continue
        rows.append(replace(row, predicted=p.makespan, predicted_ii=p.steady_interval,
                            relative_error=_error(p.makespan, row.loop_cycles)))
    return replace(group, rows=tuple(rows), prediction=pred, latencies=lat, iterations=iterations)


def loop_latencies(loop: Mapping[str, Any], load_pipes: frozenset[str]) -> LoopLatencies:
    """Latency / compute / copy-pipe occupancy per K step from a scheduled Ascend loop's
    ``EstimateLatency`` tasks (``plan.schedule_model.loops[i]``), in model cycles.

    Producers are the ``copy`` tasks on a load pipe (the backend's ``load_pipes``); every other task
    is compute.  On one pipe copies serialize: the last one's data lands ``sum(ii) +
    min(latency - ii)`` after the first issue; different pipes are taken to run in parallel.
    """
    copies, computes = [], []
    for task in loop.get("tasks") or ():
        pipe = "+".join(task.get("pipes") or ["?"])
        entry = (str(task.get("kind", "?")), pipe, float(task["latency"]), float(task.get("ii") or task["latency"]))
        is_load = entry[0].startswith("copy") and set(task.get("pipes") or ()) <= load_pipes
        (copies if is_load else computes).append(entry)
    if not copies or not computes:
        raise ValueError(
            f"K loop {loop.get('loop_var', '?')} needs both operand copies (on {sorted(load_pipes)}) and "
            f"compute tasks; got copies {[c[0] for c in copies]}, compute {[c[0] for c in computes]}"
        )
    by_pipe: dict[str, list] = {}
    for entry in copies:
        by_pipe.setdefault(entry[1], []).append(entry)
    arrival = {p: sum(e[3] for e in es) + min(e[2] - e[3] for e in es) for p, es in by_pipe.items()}
    busy = {p: sum(e[3] for e in es) for p, es in by_pipe.items()}
    copy_pipe = max(busy, key=lambda p: busy[p])
    return LoopLatencies(
        latency=max(arrival.values()),
        compute=sum(e[2] for e in computes),
        issue=busy[copy_pipe],
        copy_pipe=copy_pipe,
        copies=tuple(copies),
        computes=tuple(computes),
    )


# --------------------------------------------------------------------------- verdict


def _verdict(group: TileGroup, recs: list[dict[str, Any]]) -> Verdict:
    times = {r.num_stages: _basis_value(r, group.basis) for r in group.rows if r.loop_form == "auto"}
    times = {s: t for s, t in times.items() if s is not None and t}
    budget = _budget_max_stages(recs)
    min_depth, model_rec = _model_depths(group)
    if not times:
        why = ("no device times in this file (compile-only run): run the suite with --tlbench-kind=device "
               "for a measured verdict")
        return Verdict(None, None, min_depth, model_rec, budget, why)
    if len(times) < 2:
        why = (f"only num_stages={next(iter(times))} of this tile is in the file: nothing to compare; "
               "run the stage sweep (suites/test_stages.py) for a verdict")
        return Verdict(None, None, min_depth, model_rec, budget, why)
    recommended = models.recommend_num_stages(times, TOLERANCE)
    best = min(times, key=lambda s: (times[s], s))
    why = _why(group, times, recommended, best, min_depth)
    notes = [*_stage_1_path_switch_notes(group), *_model_notes(group, recommended, min_depth),
             *_depth_notes(group, times, recommended, best, budget)]
    return Verdict(recommended, best, min_depth, model_rec, budget, why, tuple(n for n in notes if n))


def _model_depths(group: TileGroup) -> tuple[int | None, int | None]:
    if group.fit is not None:
        return group.fit.min_sufficient_depth, models.recommend_num_stages(group.fit.predicted, TOLERANCE)
    if group.prediction is not None:
        return group.prediction.min_sufficient_depth, group.prediction.recommended_num_stages
    return None, None


def _why(group: TileGroup, times: dict[int, float], rec: int, best: int, min_depth: int | None) -> str:
    unit = _fmt_basis(group.basis)
    best_text = (f"the best measured time ({unit(times[best])}" if group.basis == "device"
                 else f"the best modeled time (model: {unit(times[best])}/core")
    head = (f"use num_stages={rec}: the smallest depth within {TOLERANCE:.0%} of {best_text} "
            f"at num_stages={best})")
    gains = [f"x{times[s] / times[rec]:.2f} over num_stages={s}" for s in (1, 0) if s in times and s != rec]
    if gains:
        head += ", " + " and ".join(gains)
    if group.fit is not None:
        f = group.fit
        tail = (f"; the timeline model fitted to num_stages>=1 puts the copy latency at {f.latency_ratio:.2f}x "
                f"the compute of one K step, so 1 + ceil({f.latency_ratio:.2f}) = {min_depth} buffers should hide it")
    elif group.latencies is not None and min_depth is not None:
        lat = group.latencies
        tail = (f"; EstimateLatency gives {lat.latency:.0f} cyc until a K step's operands are in place vs "
                f"{lat.compute:.0f} cyc of compute, so 1 + ceil({lat.latency / lat.compute:.2f}) = {min_depth} "
                f"buffers hide the copy latency")
        if lat.issue > lat.compute and group.prediction is not None:
            tail += (f", but {lat.copy_pipe} is held {lat.issue:.0f} cyc per K step (> compute): the loop is "
                     f"copy-throughput bound at II >= {lat.issue:.0f} from num_stages="
                     f"{group.prediction.recommended_num_stages} on, deeper buffers cannot help")
        tail += " (model)"
    else:
        tail = ""
    return head + tail + "."


def _stage_1_path_switch_notes(group: TileGroup) -> list[str]:
    r0, r1 = group.row(0), group.row(1)
    if group.basis != "device" or not (r0 and r1 and r0.measured_s and r1.measured_s):
        return []
    if not r1.path.startswith("warp-specialized") or r0.path.startswith("warp-specialized"):
        return []
    if r1.measured_s > r0.measured_s:
        return [f"num_stages=1 is SLOWER than num_stages=0 (x{r0.measured_s / r1.measured_s:.2f}): on this target "
                f"num_stages>=1 switches to the warp-specialized TMA producer/consumer path, and with one buffer "
                f"the producer waits for the consumer every K step (no overlap) while paying for the extra "
                f"warpgroup and barriers; num_stages=0 stays on {r0.path}."]
    if r0.measured_s <= r1.measured_s * (1 + TOLERANCE):
        return [f"num_stages=1 is about as fast as num_stages=0 (x{r0.measured_s / r1.measured_s:.2f}) although it "
                f"switches from {r0.path} to the warp-specialized TMA path with one buffer: no overlap either way."]
    return [f"num_stages=1 is already x{r0.measured_s / r1.measured_s:.2f} faster than num_stages=0 with one "
            f"buffer: it switches from {r0.path} to the warp-specialized TMA path, so that gain is the copy "
            f"engine, not pipelining; the model's 1-stage point (a loop with no overlap) is that TMA kernel."]


def _model_notes(group: TileGroup, rec: int, min_depth: int | None) -> list[str]:
    notes = []
    fit, alt = group.fit, group.fit_without_1
    if fit is not None:
        worst = max(fit.relative_error, key=lambda s: abs(fit.relative_error[s]))
        notes.append(f"model fit: rms error {fit.rms_relative_error:.1%}, worst {fit.relative_error[worst]:+.1%} at "
                     f"num_stages={worst}; latency/compute in {fit.ratio_low:.2f}..{fit.ratio_high:.2f} fits about "
                     f"as well" + (" (the measurements do not pin it down)" if fit.ratio_high > 1.5 * fit.ratio_low else ""))
        if alt is not None and alt.rms_relative_error < 0.5 * fit.rms_relative_error and fit.rms_relative_error > 0.02:
            notes.append(f"without num_stages=1 the fit is latency/compute {alt.latency_ratio:.2f} (min depth "
                         f"{alt.min_sufficient_depth}) with rms error {alt.rms_relative_error:.1%}: the 1-stage "
                         f"kernel does not behave like the deeper ones with one buffer, so one latency ratio "
                         f"cannot explain all depths")
        if min_depth is not None and rec > min_depth:
            notes.append(f"measured times keep falling past the model's min depth {min_depth}: a single "
                         f"latency/compute ratio with no fixed cost underestimates what deeper buffering buys here")
    if group.prediction is not None:
        errs = [abs(r.relative_error) for r in group.rows if r.relative_error is not None]
        if errs:
            notes.append(f"timeline model vs Z3 K-loop cycles: worst error {max(errs):.1%} (both are models)")
    return notes


def _depth_notes(group: TileGroup, times: dict[int, float], rec: int, best: int, budget: int | None) -> list[str]:
    notes = []
    deepest = max(times)
    if best == deepest and deepest >= 1 and rec == deepest:
        lat = group.latencies
        if lat is not None and _steady_ii(lat, deepest + 1) > _steady_ii(lat, deepest) * (1 - TOLERANCE):
            notes.append(f"the best is the deepest num_stages tried ({deepest}), and the model says "
                         f"num_stages={deepest + 1} would not be faster (steady II {_steady_ii(lat, deepest):.0f} -> "
                         f"{_steady_ii(lat, deepest + 1):.0f} cyc, model)")
        else:
            room = f"; the on-chip budget allows up to num_stages={budget}" if budget else ""
            notes.append(f"the best is the deepest num_stages tried ({deepest}): a deeper pipeline may gain more{room}")
    capped = [r for r in group.rows if group.scheduled and r.loop_form == "auto" and r.num_stages
              and 0 < _max_versions(r.versions) < r.num_stages]
    if capped:
        r = capped[0]
        notes.append(f"at num_stages={r.num_stages} Z3 allocates only versions {r.versions} (A/B): it needs no more "
                     f"buffers for its schedule, so deeper settings change nothing")
    return notes


def _steady_ii(lat: LoopLatencies, num_stages: int) -> float:
    return models.steady_interval_bound(lat.issue, lat.latency, lat.compute, num_stages)


def _max_versions(versions: str) -> int:
    return max((int(v) for v in versions.split("/") if v.isdigit()), default=0)


def _budget_max_stages(recs: list[dict[str, Any]]) -> int | None:
    """Deepest num_stages whose pipelined buffers fit the limit of their scope, from the
    per-version bytes of an auto record's plan."""
    for rec in recs:
        plan = rec.get("plan") or {}
        scope, used, limit = _onchip(plan)
        bufs = _pipelined_buffers(plan)
        if not (used and limit and bufs) or any(not b.get("versions") for b in bufs):
            continue
        per_stage = sum(b["bytes"] / b["versions"] for b in bufs if b.get("scope") == scope)
        fixed = used - sum(b["bytes"] for b in bufs if b.get("scope") == scope)
        if per_stage > 0:
            return int((limit - fixed) // per_stage)
    return None


# --------------------------------------------------------------------------- plan reading


def _k_loop(plan: Mapping[str, Any]) -> dict[str, Any]:
    loops = (plan.get("schedule_model") or {}).get("loops") or []
    return loops[0] if loops else {}


def _pipelined_buffers(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The operand buffers the loop multi-buffers (the scope of the first buffer)."""
    bufs = [b for b in plan.get("buffers") or [] if isinstance(b, Mapping)]
    if not bufs:
        return []
    scope = bufs[0].get("scope")
    return [b for b in bufs if b.get("scope") == scope]


def _onchip(plan: Mapping[str, Any]) -> tuple[str, int | None, int | None]:
    bufs = _pipelined_buffers(plan)
    per_scope = plan.get("bytes_per_scope") or {}
    scope = bufs[0].get("scope") if bufs else next(iter(per_scope), "")
    return scope or "", per_scope.get(scope), (plan.get("limits") or {}).get(scope)


def _path_label(plan: Mapping[str, Any]) -> str:
    pipe = plan.get("pipeline") or {}
    kind = pipe.get("kind")
    if kind is None:
        return "-"
    if kind == "z3-modulo":
        return "Z3 modulo schedule" + (" + offset" if pipe.get("enable_offset") else "")
    features = plan.get("features") or {}
    copy = "TMA" if features.get("tma") else "cp.async" if features.get("cp_async") else "plain loads"
    if kind == "warp-specialized":
        return "warp-specialized TMA"
    if kind == "software-pipeline":
        return f"software pipeline, {copy}"
    if kind == "none":
        return f"no pipeline, {copy}"
    return str(kind)


def _status(rec: dict[str, Any]) -> str:
    status = rec.get("status", "ok")
    if status == "failed":
        lines = [ln.strip() for ln in str(rec.get("error", "")).splitlines() if ln.strip()]
        return f"failed ({rec.get('stage', '?')}): {lines[-1][:100] if lines else ''}"
    if status == "skipped":
        return f"skipped: {str(rec.get('reason', ''))[:100]}"
    return "ok"


def _iterations(problem: Mapping[str, Any], config: Mapping[str, Any], recs: list[dict[str, Any]]) -> int | None:
    trips = [_k_loop(r.get("plan") or {}).get("trip_count") for r in recs]
    trips = [t for t in trips if t]
    if trips:
        return int(trips[0])
    K, block_K = problem.get("K"), config.get("block_K")
    return -(-int(K) // int(block_K)) if K and block_K else None


# --------------------------------------------------------------------------- text


def format_stage_report(report: StageReport) -> list[str]:
    lines: list[str] = []
    for group in report.groups:
        lines += _format_group(group) + [""]
    if report.ignored:
        lines.append(f"left out: {len(report.ignored)} item(s) without a tile config ({', '.join(report.ignored)})")
    return lines


def _format_group(group: TileGroup) -> list[str]:
    head = [
        f"== {group.backend} | {group.kernel} {group.problem} | tile {group.tile} | "
        f"{group.iterations if group.iterations is not None else '?'} K steps per block ==",
        f"   testbed: {group.testbed}",
    ]
    head += _basis_lines(group) + _model_lines(group)
    table = _table(_columns(group), group.rows)
    verdict = group.verdict
    tail = [f"   verdict: {verdict.why}"] if verdict else []
    if verdict:
        extras = []
        if verdict.min_sufficient_depth is not None:
            extras.append(f"model min sufficient depth {verdict.min_sufficient_depth}")
        if verdict.model_recommended is not None:
            extras.append(f"model's own pick (within {TOLERANCE:.0%} of its best) {verdict.model_recommended}")
        if verdict.budget_max_stages is not None:
            extras.append(f"on-chip budget allows up to {verdict.budget_max_stages} stages")
        if verdict.recommended is not None:
            tail.append(f"   recommended num_stages = {verdict.recommended}" + (f"  ({'; '.join(extras)})" if extras else ""))
        tail += [f"   - {n}" for n in verdict.notes]
    return head + ["   " + ln for ln in table] + tail


def _basis_lines(group: TileGroup) -> list[str]:
    if group.basis == "device":
        method = next((r.method for r in group.rows if r.method), "?")
        return [f"   time: device median per kernel ({method}); x vs 1 / x vs 0: speedup over num_stages 1 / 0"]
    if group.basis == "model":
        return ["   MODEL, not measured: cycles are tilelang EstimateLatency + Z3 schedule (cyc/core, K-loop II); "
                "x vs 1 / x vs 0 compare modeled cyc/core"]
    return ["   no device times and no schedule model: compile-only records, nothing to judge depth by"]


def _model_lines(group: TileGroup) -> list[str]:
    if group.fit is not None:
        f = group.fit
        return [f"   model: copy -> compute timeline (harness.analysis.timeline_model), {f.iterations} K steps, fitted to device "
                f"medians of num_stages>=1: latency/compute {f.latency_ratio:.2f}, compute "
                f"{format_seconds(f.compute_time)} and copy latency {format_seconds(f.latency_time)} per K step "
                f"(kernel time / K steps: all waves of blocks folded into one loop)"]
    if group.latencies is not None and group.prediction is not None:
        lat = group.latencies
        copies = ", ".join(f"{_short(n)} {lt:.0f} (holds {p} {ii:.0f})" for n, p, lt, ii in lat.copies)
        comp = ", ".join(f"{_short(n)} {lt:.0f} on {p}" for n, p, lt, _ in lat.computes)
        return [f"   model: EstimateLatency per K step (cycles, model): {copies} -> operands in place after "
                f"{lat.latency:.0f}, {lat.copy_pipe} busy {lat.issue:.0f}; compute {comp}",
                f"   timeline model (harness.analysis.timeline_model) with latency {lat.latency:.0f}, compute {lat.compute:.0f}, "
                f"issue {lat.issue:.0f}, {group.prediction.iterations} K steps, vs what Z3 scheduled"]
    return [f"   model: {group.model_note}"] if group.model_note else []


def _columns(group: TileGroup) -> list[tuple[str, Any]]:
    cols: list[tuple[str, Any]] = [("stages", lambda r: r.label)]
    if len({r.path for r in group.rows}) > 1:
        cols.append(("path", lambda r: r.path))
    cols.append(("buffers", lambda r: r.versions))
    if any(r.measured_s for r in group.rows):
        cols.append(("median", lambda r: format_seconds(r.measured_s) if r.measured_s else "-"))
    if group.scheduled or any(r.ii_cycles for r in group.rows):
        cols += [("II (Z3)", lambda r: _cyc(r.ii_cycles)), ("II model", lambda r: _cyc(r.predicted_ii)),
                 ("K loop (Z3)", lambda r: _cyc(r.loop_cycles)), ("K loop model", lambda r: _cyc(r.predicted)),
                 ("err", lambda r: _pct(r.relative_error)), ("cyc/core (Z3)", lambda r: _cyc(r.modeled_cycles))]
    elif group.fit is not None:
        cols += [("model", lambda r: format_seconds(r.predicted) if r.predicted else "-"),
                 ("err", lambda r: _pct(r.relative_error))]
    if group.basis != "none":
        suffix = "" if group.basis == "device" else " (model)"
        cols += [("x vs 1" + suffix, lambda r: _x(r.speedup_vs_1)), ("x vs 0" + suffix, lambda r: _x(r.speedup_vs_0))]
    scope = next((r.onchip_scope for r in group.rows if r.onchip_scope), "on-chip")
    cols.append((f"{scope} used/limit", _onchip_cell))
    if any(r.status != "ok" for r in group.rows):
        cols.append(("status", lambda r: r.status))
    return cols


def _table(columns: Sequence[tuple[str, Any]], rows: Iterable[StageRow]) -> list[str]:
    cells = [[h for h, _ in columns]] + [[str(fn(r)) for _, fn in columns] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(columns))]
    lefts = [h in LEFT_ALIGNED for h, _ in columns]

    def line(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if left else c.rjust(w) for c, w, left in zip(row, widths, lefts)).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths)] + [line(c) for c in cells[1:]]


def _onchip_cell(row: StageRow) -> str:
    if row.onchip_bytes is None:
        return "-"
    if not row.onchip_limit:
        return f"{row.onchip_bytes / 1024:.0f} KiB"
    return f"{row.onchip_bytes / 1024:.0f}/{row.onchip_limit / 1024:.0f} KiB {row.onchip_bytes / row.onchip_limit:4.0%}"


# --------------------------------------------------------------------------- entry


def main(path: str | Path, png_dir: str | Path | None = None) -> int:
    """Print the stage report of a results file; write PNGs to ``png_dir`` when given.
    Returns 0, or 2 after one line on stderr when the file cannot be used."""
    try:
        results = load_results(path)
        report = build_stage_report(results.document)
    except (ResultsError, StageReportError) as exc:
        where = "" if str(path) in str(exc) else f"{path}: "
        print(f"tlbench report --stages: {where}{exc}", file=sys.stderr)
        return 2
    print(f"stage report: {path}")
    print("\n".join(format_stage_report(report)))
    if png_dir is not None:
        for written in write_pngs(report, results.records, png_dir):
            print(f"wrote {written}")
    return 0


def write_pngs(report: StageReport, records: Iterable[Mapping[str, Any]], png_dir: str | Path,
               traits_of: Callable[[str], Any] | None = None) -> list[Path]:
    """One space-time PNG per group: the backend's schedule figure where its plans carry a
    schedule model (``BackendTraits.schedule_figure``), else the model fitted to device times."""
    from harness.analysis import fit_plot

    traits_of = traits_of or TraitsCatalog.from_entry_points().get
    by_case = {(r.get("backend"), r.get("case_id")): r for r in records}
    written = []
    for group in report.groups:
        title = f"{group.backend} {group.kernel} {group.problem}, tile {group.tile}"
        out = Path(png_dir) / f"{group.key}-stages.png"
        if group.latencies is not None:
            recs = [by_case[(group.backend, r.case_id)] for r in group.rows
                    if r.loop_form == "auto" and (r.num_stages or 0) >= 1 and (group.backend, r.case_id) in by_case]
            figure = traits_of(group.backend).schedule_figure(recs, out, title)
            if figure is not None:
                written.append(figure)
        elif group.fit is not None:
            written.append(fit_plot.write_fit_png(group.fit, out, title=title))
    return written


# --------------------------------------------------------------------------- helpers


def _basis_value(row: StageRow, basis: str) -> float | None:
    return row.measured_s if basis == "device" else row.modeled_cycles if basis == "model" else None


def _fmt_basis(basis: str):
    return format_seconds if basis == "device" else (lambda c: f"{c:.0f} cyc")


def _ratio(reference: float | None, value: float | None) -> float | None:
    return reference / value if reference and value else None


def _error(predicted: float | None, reference: float | None) -> float | None:
    return (predicted - reference) / reference if predicted is not None and reference else None


def _problem_label(problem: Mapping[str, Any]) -> str:
    """``8192x8192x8192 f16``; ``512x512x1024 bf16 -> f32 + relu`` with an out dtype and epilogue."""
    dtype, out = problem.get("dtype", "?"), problem.get("out_dtype")
    label = f"{problem.get('M')}x{problem.get('N')}x{problem.get('K')} {DTYPE_SHORT.get(dtype, dtype)}"
    if out and out != dtype:
        label += f" -> {DTYPE_SHORT.get(out, out)}"
    if problem.get("epilogue"):
        label += f" + {problem['epilogue']}"
    return label


def _problem_sort(label: str) -> tuple:
    dims = label.split(" ")[0].split("x")
    return tuple(int(d) if d.isdigit() else 0 for d in dims)


def _tile_label(config: Mapping[str, Any]) -> str:
    label = f"{config.get('block_M')}x{config.get('block_N')}x{config.get('block_K')} t{config.get('threads')}"
    extras = {"num_cores": "cores={}", "group_m": "group_m={}", "enable_offset": "offset", "stage_output": "staged out"}
    for key, fmt in extras.items():
        if config.get(key):
            label += " " + fmt.format(config[key])
    return label


def _short(kind: str) -> str:
    """``copy A->A_tile (global->shared.l1)`` -> ``copy A``; anything else as is."""
    if kind.startswith("copy ") and "->" in kind:
        return "copy " + kind[5:].split("->")[0].strip()
    return kind


def _cyc(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}" if float(value).is_integer() or value > 100 else f"{value:.1f}"


def _pct(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 100:+.1g}%" if 0 < abs(value) < 0.001 else f"{value:+.1%}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"x{value:.2f}"


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:2], *sys.argv[2:3]))
