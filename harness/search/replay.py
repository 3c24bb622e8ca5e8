"""Replay the search on a committed exhaustive sweep: the search asks, the recorded times answer.

Contract: ``sweeps_of(results)`` cuts a loaded results file into ``Sweep``s, one per (backend,
suite, problem, label) of its device configs; ``qualifying`` keeps the exhaustive ones with at least
``min_configs``. ``replay(sweep, settings, reader, earlier)`` runs ``run_search`` with an oracle
answering each config's recorded median (asked twice raises) and returns a ``ReplayRow``; the ranker
learns only from ``learned_from(sweep, earlier)``. Raises ``ValueError`` on a sweep with no timed
config.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..core.cases import VENDOR_SUFFIX
from ..core.record import EXTRA_KEY
from ..core.record_reader import RecordReader
from ..results.files.record_fields import Outcome, Record
from ..results.files.store import Results
from .candidates import Candidate, candidate_from_record
from .ranker import kendall_tau
from .search import SearchResult, SearchSettings, run_search

DEVICE_KIND = "device"
MIN_CONFIGS = 20
TOLERANCE = 0.01
MULTIPROCESSORS_KEY = "sm_count"


@dataclass(frozen=True)
class Sweep:
    source: str
    backend: str
    device: str | None
    suite: str
    problem_id: str
    label: str | None
    timed: tuple[Record, ...]
    failed: tuple[Outcome, ...]
    legal: int | None  # from the file's search-space diagnostics; None where it has none
    multiprocessors: int | None = None  # the device's ``sm_count`` from the file's machine info

    @property
    def configs(self) -> int:
        return len(self.timed) + len(self.failed)

    @property
    def exhaustive(self) -> bool:
        return self.legal is None or self.configs >= self.legal

    @property
    def name(self) -> str:
        label = f" [{self.label}]" if self.label else ""
        return f"{self.suite}:{self.problem_id}{label}"


@dataclass(frozen=True)
class ReplayRow:
    sweep: Sweep
    configs: int
    measured: int
    best_found_s: float | None
    exhaustive_best_s: float
    best_found_id: str | None
    exhaustive_best_id: str
    tau_prior: float | None
    tau_final: float | None
    result: SearchResult
    search_device_s: float | None = None  # warm-up + sampling of the configs the search measured (timed ones)
    exhaustive_device_s: float | None = None  # the same over every timed config of the sweep
    tolerance: float = TOLERANCE

    @property
    def fraction(self) -> float:
        return self.measured / self.configs

    @property
    def ratio(self) -> float | None:
        return None if self.best_found_s is None else self.best_found_s / self.exhaustive_best_s

    @property
    def within(self) -> bool:
        return self.ratio is not None and self.ratio <= 1 + self.tolerance


def _legal_counts(results: Results) -> dict[tuple[str, str, str], int]:
    sweeps = ((results.document.get(EXTRA_KEY) or {}).get("sweeps") or {})
    return {(d.get("backend"), name, d.get("problem_id")): d.get("legal")
            for name, sweep in sweeps.items() for d in sweep.get("diagnostics") or []
            if isinstance(d.get("legal"), int)}


def _machine(results: Results, backend: str) -> Mapping[str, Any]:
    return ((results.document.get("machine_info") or {}).get(EXTRA_KEY) or {}).get("backends", {}).get(backend) or {}


def sweeps_of(results: Results) -> list[Sweep]:
    groups: dict[tuple, dict[str, list]] = collections.defaultdict(lambda: {"timed": [], "failed": []})
    for kind, items in (("timed", results.timed), ("failed", results.failures)):
        for item in items:
            if item.kind == DEVICE_KIND and item.config is not None and item.kernel != VENDOR_SUFFIX:
                groups[(item.backend, item.suite, item.problem_id, item.label)][kind].append(item)
    legal = _legal_counts(results)
    return [Sweep(source=results.path, backend=backend, device=results.testbed(backend).accelerator, suite=suite,
                  problem_id=problem_id, label=label, timed=tuple(found["timed"]), failed=tuple(found["failed"]),
                  legal=None if label else legal.get((backend, suite, problem_id)),
                  multiprocessors=_machine(results, backend).get(MULTIPROCESSORS_KEY))
            for (backend, suite, problem_id, label), found in sorted(groups.items(),
                                                                     key=lambda kv: tuple(map(str, kv[0])))]


def qualifying(sweeps: list[Sweep], min_configs: int = MIN_CONFIGS) -> list[Sweep]:
    return [s for s in sweeps if s.exhaustive and s.configs >= min_configs]


def device_seconds(record: Record) -> float | None:
    """Warm-up plus sampling seconds of one config in the recorded run (None: not said); never read by the ranker."""
    measurement = record.measurement or {}
    parts = [measurement.get("sampling_seconds"), (measurement.get("warmup") or {}).get("seconds")]
    if not any(isinstance(p, (int, float)) for p in parts):
        return None
    return float(sum(p for p in parts if isinstance(p, (int, float))))


def _cost(records: Sequence[Record]) -> float | None:
    costs = [device_seconds(r) for r in records]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def recorded_seconds(record: Record) -> float:
    return float(record.summary["median"])


def learned_from(sweep: Sweep, earlier: Sequence[Sweep]) -> list[Sweep]:
    return [e for e in earlier if (e.backend, e.device, e.suite) == (sweep.backend, sweep.device, sweep.suite)
            and e.problem_id != sweep.problem_id and e.timed]


def history_of(sweeps: Sequence[Sweep], reader: RecordReader) -> list[tuple[Candidate, float]]:
    return [(candidate_from_record(r.raw, reader, s.multiprocessors), recorded_seconds(r)) for s in sweeps for r in s.timed]


def replay(sweep: Sweep, settings: SearchSettings = SearchSettings(), reader: RecordReader | None = None,
           earlier: Sequence[Sweep] = ()) -> ReplayRow:
    if not sweep.timed:
        raise ValueError(f"{sweep.source}: {sweep.name}: no timed config to replay")
    reader = reader or RecordReader()
    history = history_of(learned_from(sweep, earlier), reader)
    records = [*sweep.timed, *sweep.failed]
    candidates = [candidate_from_record(r.raw, reader, sweep.multiprocessors) for r in records]
    times = {r.case_id: recorded_seconds(r) for r in sweep.timed}
    failed = {r.case_id for r in sweep.failed}
    asked: list[str] = []

    def oracle(case_id: str) -> float | None:
        if case_id in asked:
            raise ValueError(f"{case_id}: asked twice")
        asked.append(case_id)
        return None if case_id in failed else times[case_id]

    result = run_search(candidates, oracle, settings, history)
    best = result.best
    exhaustive_id = min(times, key=lambda cid: (times[cid], cid))
    prior_rank = {cid: rank for rank, cid in enumerate(result.prior_ranking)}
    return ReplayRow(sweep=sweep, configs=len(candidates), measured=len(asked),
                     best_found_s=None if best is None else best.seconds, exhaustive_best_s=times[exhaustive_id],
                     best_found_id=None if best is None else best.case_id, exhaustive_best_id=exhaustive_id,
                     tau_prior=kendall_tau({c: float(r) for c, r in prior_rank.items()}, times),
                     tau_final=kendall_tau(result.final_prediction, times), result=result,
                     search_device_s=_cost([r for r in sweep.timed if r.case_id in asked]),
                     exhaustive_device_s=_cost(sweep.timed))
