"""The timeline model turned around: predictions per num_stages, and a fit to measured times.

Contract: ``predict_from_latencies`` returns a ``Prediction`` per num_stages
(``timeline_model.simulate``); ``fit_latency_ratio(measured, iterations)`` finds the latency/compute
ratio whose simulated makespans best match measured times (``Fit``); ``recommend_num_stages(times)``
is the smallest num_stages within a tolerance of the best. Pure functions, frozen dataclasses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from .timeline_model import (DEFAULT_STAGES, Number, Timeline, check_iterations, makespan_without_issue_limit,
                             min_sufficient_depth, sweep)


@dataclass(frozen=True)
class Prediction:
    """Model prediction for a loop whose latency and compute per iteration are known (measured, or estimated e.g. by
    Ascend's ``EstimateLatency``)."""

    latency: Number
    compute: Number
    issue: Number
    iterations: int
    latency_ratio: float  # latency / compute
    min_sufficient_depth: int
    recommended_num_stages: int  # smallest simulated depth within 2 % of the best makespan
    rows: tuple[Timeline, ...]


@dataclass(frozen=True)
class Fit:
    """Latency/compute ratio that best explains measured times per ``num_stages``: ``time[s] = scale *
    makespan(iterations, 0, ratio, 1, s)``.  ``ratio_low..ratio_high``: the grid ratios whose RMS relative error is
    within ``band`` of the best (wide: the measurements do not pin the ratio down)."""

    iterations: int
    latency_ratio: float
    scale: float
    measured: dict[int, float]
    predicted: dict[int, float]
    predicted_speedup: dict[int, float]  # vs the predicted 1-stage time
    relative_error: dict[int, float]
    rms_relative_error: float
    min_sufficient_depth: int
    ratio_low: float
    ratio_high: float
    band: float

    @property
    def compute_time(self) -> float:
        return self.scale

    @property
    def latency_time(self) -> float:
        return self.latency_ratio * self.scale


def predict_from_latencies(latency: Number, compute: Number, iterations: int,
                           stages: Iterable[int] = DEFAULT_STAGES, issue: Number = 0) -> Prediction:
    """Model prediction for a measured or estimated per-iteration ``latency`` and ``compute`` (any one unit, e.g.
    Ascend ``EstimateLatency`` cycles)."""
    rows = tuple(sweep(iterations, issue, latency, compute, stages))
    if not rows:
        raise ValueError("predict_from_latencies: stages is empty")
    return Prediction(
        latency=latency, compute=compute, issue=issue, iterations=iterations, latency_ratio=latency / compute,
        min_sufficient_depth=min_sufficient_depth(latency, compute),
        recommended_num_stages=recommend_num_stages({r.num_stages: r.makespan for r in rows}), rows=rows,
    )


def fit_latency_ratio(
    stage_times: Mapping[int, float | None], iterations: int, *, ratio_min: float = 0.05, ratio_max: float = 20.0,
    ratio_step: float = 0.005, band: float = 0.005,
) -> Fit:
    """The ratio on a grid ``ratio_min..ratio_max`` (refined 50x finer around the best) with the smallest RMS
    relative error, the scale being closed-form per ratio; ties go to the smaller ratio.  Times that are None,
    non-finite or <= 0 and ``num_stages < 1`` are ignored; at least two points must remain (else ValueError)."""
    check_iterations(iterations)
    if not (0 < ratio_min < ratio_max) or ratio_step <= 0:
        raise ValueError(f"fit_latency_ratio: need 0 < ratio_min < ratio_max and ratio_step > 0, got "
                         f"{ratio_min}, {ratio_max}, {ratio_step}")
    measured = {int(s): float(t) for s, t in sorted(stage_times.items())
                if int(s) >= 1 and t is not None and math.isfinite(float(t)) and float(t) > 0}
    if len(measured) < 2:
        raise ValueError("fit_latency_ratio needs measured times (> 0) for at least 2 distinct "
                         f"num_stages >= 1; usable points: {measured or 'none'} (from {dict(stage_times)})")

    def loss(ratio: float) -> tuple[float, float]:
        model = [makespan_without_issue_limit(iterations, ratio, 1, s) for s in measured]
        a = [m / t for m, t in zip(model, measured.values())]
        scale = sum(a) / sum(x * x for x in a)
        rms = math.sqrt(sum((scale * x - 1.0) ** 2 for x in a) / len(a))
        return rms, scale

    count = int(math.floor((ratio_max - ratio_min) / ratio_step + 1e-9)) + 1
    coarse = [round(ratio_min + i * ratio_step, 12) for i in range(count)]
    coarse_loss = [loss(r)[0] for r in coarse]
    best_i = min(range(count), key=lambda i: (coarse_loss[i], i))
    fine_step = ratio_step / 50
    centre = coarse[best_i]
    fine = [r for r in (round(centre + j * fine_step, 12) for j in range(-50, 51)) if ratio_min <= r <= ratio_max]
    candidates = [(loss(r), r) for r in fine]
    (best_rms, scale), ratio = min(candidates, key=lambda c: (c[0][0], c[1]))
    in_band = [r for r, l in zip(coarse, coarse_loss) if l <= best_rms + band]
    in_band += [r for (l, _), r in candidates if l <= best_rms + band]

    predicted_by_stage = {s: scale * makespan_without_issue_limit(iterations, ratio, 1, s) for s in measured}
    single = scale * makespan_without_issue_limit(iterations, ratio, 1, 1)
    return Fit(
        iterations=iterations, latency_ratio=ratio, scale=scale, measured=measured, predicted=predicted_by_stage,
        predicted_speedup={s: single / p for s, p in predicted_by_stage.items()},
        relative_error={s: (predicted_by_stage[s] - t) / t for s, t in measured.items()}, rms_relative_error=best_rms,
        min_sufficient_depth=min_sufficient_depth(ratio, 1), ratio_low=min(in_band), ratio_high=max(in_band), band=band,
    )


def recommend_num_stages(times_by_stage: Mapping[int, float | None], tolerance: float = 0.02) -> int:
    """Smallest ``num_stages`` within ``tolerance`` of the best time (extra stages cost on-chip memory for nothing);
    times that are None, non-finite or <= 0 are ignored."""
    usable = {int(s): float(t) for s, t in times_by_stage.items()
              if t is not None and math.isfinite(float(t)) and float(t) > 0}
    if not usable:
        raise ValueError(f"recommend_num_stages: no usable (> 0) time in {dict(times_by_stage)}")
    best = min(usable.values())
    return min(s for s, t in usable.items() if t <= best * (1.0 + tolerance))


