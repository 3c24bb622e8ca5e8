"""Predicted time of every legal config, before and while measuring.

Contract
--------
* ``prior_log_time(candidate, model)`` is the first-run prediction, from the plan alone (no
  history, no measurement), in natural-log units of an arbitrary scale (only differences
  within one problem mean anything):

  - the seed chapter's timeline model (harness/analysis/timeline_model.py): the makespan of
    ``loop_trips`` iterations (``DEFAULT_TRIPS`` where the family names none) of a
    ``copy -> compute`` loop with ``candidate.depth`` buffers, ``latency / compute`` =
    ``model.latency_over_compute`` (the seed's 30 / 20), against one buffer: what the stages
    buy;
  - minus ``model.shared_weight`` x the share of on-chip memory the plan fills (a larger tile
    or a deeper pipeline reuses more of each byte it loads);
  - minus ``model.threads_weight`` x log2(threads per block) (more warps in flight hide more
    latency);
  - minus ``model.fill_weight`` x log(machine fill) where the device's multiprocessor count is
    known (``Candidate.machine_fill``: a grid that leaves multiprocessors idle in its last wave,
    or a small problem cut into fewer blocks than there are multiprocessors, runs longer).

* ``Ranker(candidates, model)`` adds what measurements teach: ``observe(case_id, seconds)``
  and ``predict()`` -> ``{case_id: Prediction(log_time, spread)}``.  The learned part is a
  Gaussian process on the residuals ``log(seconds) - prior`` over the configs' categorical
  values (``Candidate.categories``; kernel ``exp(-differing values / length)``), with a
  learned constant offset; with no measurement the prediction is the prior.  A failed config
  (``observe(case_id, None)``) is never predicted again and teaches nothing.
* ``ranking(predictions)``: case ids fastest first (ties by case id: deterministic).
* ``kendall_tau(predicted, measured)``: tau-b between two ``{case_id: value}`` maps over
  their common keys; None with fewer than two.
Pure: no state outside the Ranker instance; no I/O; never reads a time it was not handed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from tlbench.harness.analysis.timeline_model import makespan_without_issue_limit
from tlbench.harness.search.candidates import Candidate

DEFAULT_TRIPS = 64


@dataclass(frozen=True)
class ModelSettings:
    """The first-run model's constants and the learned part's kernel (see the module docstring)."""

    latency_over_compute: float = 1.5
    shared_weight: float = 0.3
    threads_weight: float = 0.05
    fill_weight: float = 1.0
    length: float = 1.5  # configs differing in this many values are exp(-1) alike
    additive: float = 0.9  # share of the kernel that is the fraction of values two configs share (main effects)
    noise: float = 0.05  # the learned part's noise, in variance units of the residual scale
    scale: float = 0.25  # prior variance of a residual (log units squared)


@dataclass(frozen=True)
class Prediction:
    log_time: float
    spread: float  # one standard deviation of log_time (the prior's scale where nothing near was measured)


def timeline_log_speedup(depth: int, trips: int | None, latency_over_compute: float) -> float:
    """log(makespan with 1 buffer / makespan with ``depth`` buffers) from the seed's model."""
    n = trips or DEFAULT_TRIPS
    one = makespan_without_issue_limit(n, latency_over_compute, 1.0, 1)
    deep = makespan_without_issue_limit(n, latency_over_compute, 1.0, max(1, depth))
    return math.log(one / deep)


def prior_log_time(candidate: Candidate, model: ModelSettings = ModelSettings()) -> float:
    value = -timeline_log_speedup(candidate.depth, candidate.loop_trips, model.latency_over_compute)
    value -= model.shared_weight * candidate.shared_fraction
    if candidate.threads:
        value -= model.threads_weight * math.log2(candidate.threads)
    if candidate.machine_fill:
        value -= model.fill_weight * math.log(candidate.machine_fill)
    return value


def ranking(predictions: Mapping[str, Prediction]) -> list[str]:
    return sorted(predictions, key=lambda cid: (predictions[cid].log_time, cid))


class Ranker:
    """Prior plus what the measurements so far teach (module docstring)."""

    def __init__(self, candidates: Sequence[Candidate], model: ModelSettings = ModelSettings()):
        if not candidates:
            raise ValueError("nothing to rank: no candidates")
        ids = [c.case_id for c in candidates]
        if len(set(ids)) != len(ids):
            raise ValueError("candidates repeat a case id")
        self.model = model
        self.ids = ids
        self.prior = np.array([prior_log_time(c, model) for c in candidates])
        self._codes = _encode([c.categories() for c in candidates])
        self.observed: dict[str, float | None] = {}

    def observe(self, case_id: str, seconds: float | None) -> None:
        if case_id not in self.ids:
            raise KeyError(f"{case_id}: not one of the candidates")
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"{case_id}: a measured time must be a positive number, got {seconds!r}")
        self.observed[case_id] = seconds

    def predict(self) -> dict[str, Prediction]:
        index = {cid: i for i, cid in enumerate(self.ids)}
        timed = [(index[c], math.log(s)) for c, s in self.observed.items() if s is not None]
        mean = self.prior.copy()
        spread = np.full(len(self.ids), math.sqrt(self.model.scale))
        if timed:
            rows = np.array([i for i, _ in timed])
            residual = np.array([y for _, y in timed]) - self.prior[rows]
            offset = float(np.mean(residual))
            similar = self._kernel(rows)
            gram = similar[np.ix_(rows, rows)] + self.model.noise * self.model.scale * np.eye(len(rows))
            weights = np.linalg.solve(gram, residual - offset)
            mean = self.prior + offset + similar[:, rows] @ weights
            solved = np.linalg.solve(gram, similar[:, rows].T)
            variance = self.model.scale - np.einsum("ij,ji->i", similar[:, rows], solved)
            spread = np.sqrt(np.clip(variance, 1e-12, None))
        return {cid: Prediction(float(mean[i]), float(spread[i])) for i, cid in enumerate(self.ids)
                if self.observed.get(cid, 0.0) is not None}

    def _kernel(self, rows: np.ndarray) -> np.ndarray:
        differing = (self._codes[:, None, :] != self._codes[None, rows, :]).sum(axis=2)
        shared = 1.0 - differing / self._codes.shape[1]
        alike = self.model.additive * shared + (1 - self.model.additive) * np.exp(-differing / self.model.length)
        full = np.zeros((len(self.ids), len(self.ids)))
        full[:, rows] = self.model.scale * alike
        return full


def _encode(categories: Sequence[Mapping[str, str]]) -> np.ndarray:
    """One integer column per category key that varies across the candidates."""
    keys = sorted({k for c in categories for k in c})
    varying = [k for k in keys if len({c.get(k) for c in categories}) > 1]
    columns = []
    for key in varying:
        values = sorted({str(c.get(key)) for c in categories})
        columns.append([values.index(str(c.get(key))) for c in categories])
    return np.array(columns, dtype=int).T if columns else np.zeros((len(categories), 1), dtype=int)


def kendall_tau(predicted: Mapping[str, float], measured: Mapping[str, float]) -> float | None:
    common = sorted(set(predicted) & set(measured))
    if len(common) < 2:
        return None
    from scipy.stats import kendalltau

    tau = kendalltau([predicted[c] for c in common], [measured[c] for c in common]).statistic
    return None if tau is None or math.isnan(tau) else float(tau)


