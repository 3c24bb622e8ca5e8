"""Predicted time of every legal config, before and while measuring.

Contract: ``prior_log_time(candidate, model)`` is the first-run prediction from the plan alone (log
units of an arbitrary scale: the seed's ``copy -> compute`` timeline minus weighted plan terms, or
log(the compiler's modeled cycles)). ``Ranker(candidates, model, history)``: ``observe(case_id,
seconds | None)`` and ``predict()``, the prior plus a Gaussian process on the residuals, earlier
problems' residuals joining at ``history_correlation``; a failed config is never predicted again.
``ranking`` orders fastest first (ties by id); ``kendall_tau`` is tau-b over common keys (None under
two). No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..analysis.timeline_model import makespan_without_issue_limit
from .candidates import Candidate

DEFAULT_TRIPS = 64


@dataclass(frozen=True)
class ModelSettings:
    latency_over_compute: float = 1.5
    shared_weight: float = 0.3
    threads_weight: float = 0.05
    fill_weight: float = 1.0
    length: float = 1.5  # configs differing in this many values are exp(-1) alike
    additive: float = 0.9  # share of the kernel that is the fraction of values two configs share (main effects)
    noise: float = 0.05  # the learned part's noise, in variance units of the residual scale
    scale: float = 0.25  # prior variance of a residual (log units squared)
    history_correlation: float = 0.6  # how much an earlier problem's residuals say about this one's


@dataclass(frozen=True)
class Prediction:
    log_time: float
    spread: float  # one standard deviation of log_time (the prior's scale where nothing near was measured)


def prior_log_time(candidate: Candidate, model: ModelSettings = ModelSettings()) -> float:
    if candidate.modeled_cycles is not None:  # the compiler's schedule model of this very kernel: its answer
        return math.log(candidate.modeled_cycles)
    n, ratio = candidate.loop_trips or DEFAULT_TRIPS, model.latency_over_compute
    value = -math.log(makespan_without_issue_limit(n, ratio, 1.0, 1)  # what the stages buy over one buffer
                      / makespan_without_issue_limit(n, ratio, 1.0, max(1, candidate.depth)))
    value -= model.shared_weight * candidate.shared_fraction
    if candidate.threads:
        value -= model.threads_weight * math.log2(candidate.threads)
    if candidate.machine_fill:
        value -= model.fill_weight * math.log(candidate.machine_fill)
    return value


def ranking(predictions: Mapping[str, Prediction]) -> list[str]:
    return sorted(predictions, key=lambda cid: (predictions[cid].log_time, cid))


class Ranker:

    def __init__(self, candidates: Sequence[Candidate], model: ModelSettings = ModelSettings(),
                 history: Sequence[tuple[Candidate, float]] = ()):
        if not candidates:
            raise ValueError("nothing to rank: no candidates")
        ids = [c.case_id for c in candidates]
        if len(set(ids)) != len(ids):
            raise ValueError("candidates repeat a case id")
        self.model = model
        self.ids = ids
        self.prior = np.array([prior_log_time(c, model) for c in candidates])
        self._encoder = _Encoder([c.categories() for c in candidates])
        self._codes = self._encoder.encode([c.categories() for c in candidates])
        self._history = _history_residuals(history, self._encoder, model)
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
        rows = np.array([i for i, _ in timed], dtype=int)
        residual = np.array([y for _, y in timed]) - self.prior[rows] if timed else np.zeros(0)
        offset = float(np.mean(residual)) if timed else 0.0
        codes = np.vstack([self._codes[rows], self._history.codes])
        groups = np.concatenate([np.zeros(len(rows), dtype=int), self._history.groups])
        targets = np.concatenate([residual - offset, self._history.residuals])
        mean = self.prior + offset
        spread = np.full(len(self.ids), math.sqrt(self.model.scale))
        if len(targets):
            gram = self._kernel(codes, groups, codes, groups)
            gram += self.model.noise * self.model.scale * np.eye(len(targets))
            cross = self._kernel(self._codes, np.zeros(len(self.ids), dtype=int), codes, groups)
            mean = mean + cross @ np.linalg.solve(gram, targets)
            variance = self.model.scale - np.einsum("ij,ji->i", cross, np.linalg.solve(gram, cross.T))
            spread = np.sqrt(np.clip(variance, 1e-12, None))
        return {cid: Prediction(float(mean[i]), float(spread[i])) for i, cid in enumerate(self.ids)
                if self.observed.get(cid, 0.0) is not None}

    def _kernel(self, left: np.ndarray, left_groups: np.ndarray, right: np.ndarray, right_groups: np.ndarray) -> np.ndarray:
        """Covariance of residuals: the configs' likeness, times ``history_correlation`` across problems."""
        differing = (left[:, None, :] != right[None, :, :]).sum(axis=2)
        alike = (self.model.additive * (1.0 - differing / max(1, left.shape[1]))
                 + (1 - self.model.additive) * np.exp(-differing / self.model.length))
        same = left_groups[:, None] == right_groups[None, :]
        return self.model.scale * alike * np.where(same, 1.0, self.model.history_correlation)


@dataclass(frozen=True)
class _HistoryResiduals:
    codes: np.ndarray
    groups: np.ndarray  # 1, 2, ...: one per earlier problem (0 is the problem being ranked)
    residuals: np.ndarray  # log(seconds) - prior, centred per earlier problem


class _Encoder:
    """One integer column per category key that varies across the candidates; a value the candidates never take is
    -1 (alike to nothing)."""

    def __init__(self, categories: Sequence[Mapping[str, str]]):
        keys = sorted({k for c in categories for k in c})
        self.values = {k: sorted({str(c.get(k)) for c in categories}) for k in keys}
        self.keys = [k for k in keys if len(self.values[k]) > 1]

    def encode(self, categories: Sequence[Mapping[str, str]]) -> np.ndarray:
        if not self.keys:
            return np.zeros((len(categories), 1), dtype=int)
        rows = [[self.values[k].index(str(c.get(k))) if str(c.get(k)) in self.values[k] else -1 for k in self.keys]
                for c in categories]
        return np.array(rows, dtype=int).reshape(len(categories), len(self.keys))


def _history_residuals(history: Sequence[tuple[Candidate, float]], encoder: _Encoder, model: ModelSettings) -> _HistoryResiduals:
    by_problem: dict[str, list[tuple[Candidate, float]]] = {}
    for candidate, seconds in history:
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"{candidate.case_id}: a recorded time must be a positive number, got {seconds!r}")
        by_problem.setdefault(repr(sorted(candidate.problem.items())), []).append((candidate, seconds))
    codes, groups, residuals = [], [], []
    for group, (_, pairs) in enumerate(sorted(by_problem.items()), start=1):
        values = np.array([math.log(s) - prior_log_time(c, model) for c, s in pairs])
        codes.append(encoder.encode([c.categories() for c, _ in pairs]))
        groups.append(np.full(len(pairs), group))
        residuals.append(values - values.mean())
    width = max(1, len(encoder.keys))
    return _HistoryResiduals(codes=np.vstack(codes) if codes else np.zeros((0, width), dtype=int),
                             groups=np.concatenate(groups) if groups else np.zeros(0, dtype=int),
                             residuals=np.concatenate(residuals) if residuals else np.zeros(0))


def kendall_tau(predicted: Mapping[str, float], measured: Mapping[str, float]) -> float | None:
    common = sorted(set(predicted) & set(measured))
    if len(common) < 2:
        return None
    from scipy.stats import kendalltau

    tau = kendalltau([predicted[c] for c in common], [measured[c] for c in common]).statistic
    return None if tau is None or math.isnan(tau) else float(tau)
