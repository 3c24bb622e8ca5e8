"""The stage report's verdict per tile group: the recommended num_stages and one sentence of why.

Contract: ``group_verdict(group, records)`` returns a ``StageVerdict``: the smallest auto
num_stages within 2 % of the best on the group's basis, the model's and the budget's depths, why,
and notes.
"""

from __future__ import annotations

from typing import Any, Mapping
from . import timeline_fit
from .stage_fit import steady_ii
from .stage_plan import basis_value, budget_max_stages, fmt_basis, max_versions
from .stage_types import StageVerdict, TOLERANCE, TileGroup


def group_verdict(group: TileGroup, recs: list[Mapping[str, Any]]) -> StageVerdict:
    times = {r.num_stages: basis_value(r, group.basis) for r in group.rows if r.loop_form == "auto"}
    times = {s: t for s, t in times.items() if s is not None and t}
    budget = budget_max_stages(recs)
    min_depth, model_rec = _model_depths(group)
    if not times:
        why = ("no device times in this file (compile-only run): run the suite with --tlbench-kind=device "
               "for a measured verdict")
        return StageVerdict(None, None, min_depth, model_rec, budget, why)
    if len(times) < 2:
        why = (f"only num_stages={next(iter(times))} of this tile is in the file: nothing to compare; "
               "sweep num_stages for this tile (e.g. num_stages=[1, 2, 3, 4] in its suite) for a verdict")
        return StageVerdict(None, None, min_depth, model_rec, budget, why)
    recommended = timeline_fit.recommend_num_stages(times, TOLERANCE)
    best = min(times, key=lambda s: (times[s], s))
    why = _why(group, times, recommended, best, min_depth)
    notes = [*_stage_1_path_switch_notes(group), *_model_notes(group, recommended, min_depth),
             *_depth_notes(group, times, recommended, best, budget)]
    return StageVerdict(recommended, best, min_depth, model_rec, budget, why, tuple(n for n in notes if n))


def _model_depths(group: TileGroup) -> tuple[int | None, int | None]:
    if group.fit is not None:
        return group.fit.min_sufficient_depth, timeline_fit.recommend_num_stages(group.fit.predicted, TOLERANCE)
    if group.prediction is not None:
        return group.prediction.min_sufficient_depth, group.prediction.recommended_num_stages
    return None, None


def _why(group: TileGroup, times: dict[int, float], rec: int, best: int, min_depth: int | None) -> str:
    unit = fmt_basis(group.basis)
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
        if lat is not None and steady_ii(lat, deepest + 1) > steady_ii(lat, deepest) * (1 - TOLERANCE):
            notes.append(f"the best is the deepest num_stages tried ({deepest}), and the model says "
                         f"num_stages={deepest + 1} would not be faster (steady II {steady_ii(lat, deepest):.0f} -> "
                         f"{steady_ii(lat, deepest + 1):.0f} cyc, model)")
        else:
            room = f"; the on-chip budget allows up to num_stages={budget}" if budget else ""
            notes.append(f"the best is the deepest num_stages tried ({deepest}): a deeper pipeline may gain more{room}")
    capped = [r for r in group.rows if group.scheduled and r.loop_form == "auto" and r.num_stages
              and 0 < max_versions(r.versions) < r.num_stages]
    if capped:
        r = capped[0]
        notes.append(f"at num_stages={r.num_stages} Z3 allocates only versions {r.versions} (A/B): it needs no more "
                     f"buffers for its schedule, so deeper settings change nothing")
    return notes
