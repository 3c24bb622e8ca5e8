"""The search: measure the ranker's top configs and a few to test it, re-rank, stop by a rule.

Contract: ``run_search(candidates, oracle, settings, history=()) -> SearchResult``;
``oracle(case_id)`` returns seconds or None (failed).  Order: the ``first`` configs of the prior
ranking, ``probes`` configs differing most from those, then one at a time the fastest by
``log_time - optimism x spread``, until ``STOP_RULE`` holds.  Every candidate is in ``measured``
or ``skipped``, with its predicted rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .candidates import Candidate
from .ranker import ModelSettings, Ranker, ranking

Oracle = Callable[[str], "float | None"]

STOP_RULE = ("the best measured config stayed the best for {patience} model-chosen measurements in a row and no "
             "unmeasured config is predicted faster by more than {margin:.0%}; or {fraction:.0%} of the configs are "
             "measured")


@dataclass(frozen=True)
class SearchSettings:
    max_fraction: float = 0.25
    min_measured: int = 3
    first: int = 1
    probes: int = 2
    patience: int = 8
    margin: float = 0.01
    optimism: float = 1.0
    model: ModelSettings = field(default_factory=ModelSettings)

    def __post_init__(self) -> None:
        if not 0 < self.max_fraction <= 1:
            raise ValueError(f"max_fraction must be in (0, 1], got {self.max_fraction!r}")
        for name in ("min_measured", "first", "patience"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more, got {getattr(self, name)!r}")
        if self.probes < 0 or self.margin < 0 or self.optimism < 0:
            raise ValueError("probes, margin and optimism must not be negative")

    def rule(self) -> str:
        return STOP_RULE.format(patience=self.patience, margin=self.margin, fraction=self.max_fraction)


@dataclass(frozen=True)
class Measured:
    case_id: str
    seconds: float | None  # None: the config failed
    why: str  # "prior top", "probe", "model"
    predicted_rank: int  # 1-based, in the ranking the choice was made from


@dataclass(frozen=True)
class Skipped:
    case_id: str
    reason: str
    predicted_rank: int  # 1-based, in the final ranking
    predicted_seconds: float


@dataclass(frozen=True)
class SearchResult:
    candidates: int
    budget: int
    measured: tuple[Measured, ...]
    skipped: tuple[Skipped, ...]
    stopped_because: str
    rule: str
    prior_ranking: tuple[str, ...]
    final_prediction: dict[str, float]  # case id -> predicted seconds (measured ones: the model's fit)

    @property
    def best(self) -> Measured | None:
        return _best(self.measured)


def budget(n: int, settings: SearchSettings) -> int:
    return min(n, max(settings.min_measured, math.floor(settings.max_fraction * n)))


def _differing(a: Candidate, b: Candidate) -> int:
    keys = set(a.config) | set(b.config)
    return sum(a.config.get(k) != b.config.get(k) for k in keys)


def run_search(candidates: Sequence[Candidate], oracle: Oracle, settings: SearchSettings = SearchSettings(),
               history: Sequence[tuple[Candidate, float]] = ()) -> SearchResult:
    ranker = Ranker(candidates, settings.model, history)
    by_id = {c.case_id: c for c in candidates}
    cap = budget(len(candidates), settings)
    prior_order = ranking(ranker.predict())
    measured: list[Measured] = []

    def measure(case_id: str, why: str, order: list[str]) -> None:
        seconds = oracle(case_id)
        ranker.observe(case_id, seconds)
        measured.append(Measured(case_id, seconds, why, order.index(case_id) + 1))

    for case_id in prior_order[: min(settings.first, cap)]:
        measure(case_id, "prior top", prior_order)
    for _ in range(min(settings.probes, cap - len(measured))):
        chosen = [by_id[m.case_id] for m in measured]
        rest = [cid for cid in prior_order if cid not in ranker.observed]
        if not rest:
            break
        far = max(rest, key=lambda cid: (min(_differing(by_id[cid], c) for c in chosen), -prior_order.index(cid)))
        measure(far, "probe", prior_order)

    stopped = "every config measured"
    steady = 0
    while len(measured) < len(candidates):
        if len(measured) >= cap:
            stopped = f"measurement budget spent ({cap} of {len(candidates)})"
            break
        predictions = ranker.predict()
        best = _best(measured)
        open_ids = [cid for cid in predictions if cid not in ranker.observed]
        if best is not None and steady >= settings.patience:
            fastest_open = min(predictions[cid].log_time for cid in open_ids)
            if fastest_open > math.log(best.seconds) + math.log(1 - settings.margin):
                stopped = f"best stable: {best.case_id} stayed the best for {steady} model-chosen measurements"
                break
        order = ranking(predictions)
        pick = min(open_ids, key=lambda cid: (predictions[cid].log_time - settings.optimism * predictions[cid].spread, cid))
        measure(pick, "model", order)
        steady = steady + 1 if best is not None and _best(measured) is best else 0
    final = ranker.predict()
    final_order = ranking(final)
    done = {m.case_id for m in measured}
    skipped = tuple(Skipped(cid, f"not measured: the search stopped ({stopped})", final_order.index(cid) + 1,
                            math.exp(final[cid].log_time)) for cid in final_order if cid not in done)
    return SearchResult(candidates=len(candidates), budget=cap, measured=tuple(measured), skipped=skipped,
                        stopped_because=stopped, rule=settings.rule(), prior_ranking=tuple(prior_order),
                        final_prediction={cid: math.exp(p.log_time) for cid, p in final.items()})


def _best(measured: Sequence[Measured]) -> Measured | None:
    timed = [m for m in measured if m.seconds is not None]
    return min(timed, key=lambda m: (m.seconds, m.case_id)) if timed else None
