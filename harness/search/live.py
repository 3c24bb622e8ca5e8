"""The search in a real run: one problem's configs on one device, measured as the model asks.

Contract: ``measure_by_search(session, items, policy, settings, progress, clock, history_runs)``
takes one problem's device items and returns one ``Outcome`` per item, in order. Under
``settings.min_configs`` kernel configs everything is measured as without a search; else
``run_search`` asks for configs one at a time, each measured with the vendor items paired. Measured
records get ``search``; every unmeasured config becomes a ``skipped`` outcome.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..core.cases import VendorCase, fields_of
from ..core.record import BenchItem
from ..measure.outcome import Outcome
from ..measure.rounds import ProgressCallback, measure_items
from ..core.record_reader import RecordReader
from ..results.files.store import Results, load_results
from .candidates import Candidate, candidate_from_record
from .replay import recorded_seconds
from .search import SearchSettings, run_search

SEARCH_KEY = "search"


@dataclass(frozen=True)
class LiveSettings:
    """``--tlbench-search=model`` and its knobs (harness/pytest_plugin/options.py)."""

    search: SearchSettings = field(default_factory=SearchSettings)
    min_configs: int = 20  # a problem with fewer legal configs is measured whole

    @classmethod
    def from_policy(cls, policy: Any) -> "LiveSettings":
        return cls(SearchSettings(max_fraction=policy.search_fraction, patience=policy.search_patience),
                   policy.search_min_configs)


@dataclass(frozen=True)
class ProblemAccount:
    configs: int
    measured: int
    stopped_because: str
    rule: str
    measured_device_s: float  # the sampling seconds of the search's measurements (kernels and paired vendor)
    wall_s: float  # from the first preparation to the last measurement
    # a projection, not a measurement: the kernels' mean sampling seconds x configs, plus one vendor call's
    exhaustive_projection_s: float
    learned_from: int = 0  # timed configs of earlier runs (--tlbench-search-learn-from) the ranker learned from

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _sampling_seconds(outcome: Outcome) -> float:
    value = ((outcome.record or {}).get("measurement") or {}).get("sampling_seconds")
    return float(value) if isinstance(value, (int, float)) else 0.0


def _candidate(item: BenchItem, prepared: Any, multiprocessors: int | None) -> Candidate:
    case = item.case
    try:
        trips = case.family.loop_trips(case.problem, case.config)
    except Exception:  # noqa: BLE001 - a family that cannot say leaves the model its default
        trips = None
    plan = prepared.plan.to_dict() if getattr(prepared, "plan", None) is not None else {}
    return Candidate(case_id=case.case_id, config=fields_of(case.config), problem=fields_of(case.problem), plan=plan,
                     budget=dict(getattr(prepared, "budget", None) or {}),
                     loop_trips=trips if isinstance(trips, int) and trips > 0 else None,
                     multiprocessors=multiprocessors if isinstance(multiprocessors, int) and multiprocessors > 0
                     else None)


def _device_info(session: Any) -> Mapping[str, Any]:
    info = getattr(session, "device_info", None)
    if not isinstance(info, dict):
        backend = getattr(session, "backend", None)
        reader = getattr(backend, "device_info", None)
        try:
            info = reader() if callable(reader) else {}
        except Exception:  # noqa: BLE001 - no device facts: the model goes without them
            info = {}
    return dict(info or {})


class ProblemSearch:
    """``measure_by_search`` with the policy's knobs, learning from ``runs`` (read once by ``load_history``)."""

    def __init__(self, runs: Sequence[Results] = ()) -> None:
        self.runs = tuple(runs)

    def __call__(self, session: Any, items: Sequence[BenchItem], policy: Any,
                 progress: ProgressCallback | None = None) -> list[Outcome]:
        return measure_by_search(session, items, policy, LiveSettings.from_policy(policy), progress=progress,
                                 history_runs=self.runs)


def load_history(paths: Sequence[str]) -> tuple[Results, ...]:
    """Each ``--tlbench-search-learn-from`` file read, or ``ValueError`` saying which and why."""
    runs = []
    for path in paths:
        try:
            runs.append(load_results(path))
        except (OSError, ValueError) as exc:
            raise ValueError(f"--tlbench-search-learn-from {path}: not a readable results file ({exc}); give the "
                             f"--benchmark-json file of an earlier run") from None
    return tuple(runs)


def earlier_history(runs: Sequence[Results], item: BenchItem, accelerator: Any, multiprocessors: int | None
                    ) -> list[tuple[Candidate, float]]:
    """(candidate, recorded median) of ``runs``' timed configs of ``item``'s kernel on the same backend and device."""
    family, keys = item.case.family.name, set(fields_of(item.case.config))
    reader = RecordReader()
    out: list[tuple[Candidate, float]] = []
    for results in runs:
        if results.testbed(item.backend).accelerator != accelerator:
            continue
        for record in results.timed:
            if (record.backend, record.kind, record.family) != (item.backend, "device", family) \
                    or not isinstance(record.config, dict) or set(record.config) != keys:
                continue
            try:
                out.append((candidate_from_record(record.raw, reader, multiprocessors), recorded_seconds(record)))
            except (KeyError, TypeError, ValueError):  # a record the reader cannot read teaches nothing
                continue
    return out


def measure_by_search(session: Any, items: Sequence[BenchItem], policy: Any, settings: LiveSettings,
                      progress: ProgressCallback | None = None,
                      clock: Callable[[], float] = time.perf_counter,
                      history_runs: Sequence[Results] = ()) -> list[Outcome]:
    kernels = [i for i in items if not isinstance(i.case, VendorCase)]
    vendors = [i for i in items if isinstance(i.case, VendorCase)]
    if len(kernels) < settings.min_configs:
        return measure_items(session, items, policy, progress=progress)
    start = clock()
    outcomes: dict[str, Outcome] = {}
    prepared_items: list[tuple[BenchItem, Any]] = []
    for item in kernels:
        try:
            prepared = session.prepare(item)
        except Exception as exc:  # noqa: BLE001 - the item fails with these words, as measure_items fails it
            prepared = Outcome(status="failed", stage="prepare", reason=f"{type(exc).__name__}: {exc}")
        if isinstance(prepared, Outcome):
            outcomes[item.item_id] = prepared
        else:
            prepared_items.append((item, prepared))
    info = _device_info(session)  # after a preparation: a worker session knows its device once it started
    multiprocessors = info.get("sm_count") if isinstance(info.get("sm_count"), int) else None
    candidates = [_candidate(item, prepared, multiprocessors) for item, prepared in prepared_items]
    by_case = {item.case.case_id: item for item, _ in prepared_items}
    history = earlier_history(history_runs, kernels[0], info.get("accelerator"), multiprocessors) if history_runs else []
    if len(candidates) < settings.min_configs:  # too few left to search: measure what can be measured
        rest = [i for i in items if i.item_id not in outcomes]
        outcomes.update((i.item_id, o) for i, o in zip(rest, measure_items(session, rest, policy, progress=progress)))
        return [outcomes[i.item_id] for i in items]

    kernel_s: list[float] = []  # each search measurement's kernel sampling seconds
    vendor_s: list[float] = []  # each call's vendor sampling seconds (paired in every call)

    def oracle(case_id: str) -> float | None:
        item = by_case[case_id]
        first_vendors = [v for v in vendors if v.item_id not in outcomes]
        pairs = [item, *vendors]
        measured = measure_items(session, pairs, policy, progress=progress)
        kernel_s.append(_sampling_seconds(measured[0]))
        vendor_s.append(sum(_sampling_seconds(o) for o in measured[1:]))
        for it, outcome in zip(pairs, measured):
            if it is item or it in first_vendors:
                outcomes[it.item_id] = outcome
        mine = outcomes[item.item_id]
        if mine.status != "timed" or not mine.samples_s:
            return None
        return float((mine.record.get("summary") or {}).get("median") or sorted(mine.samples_s)[len(mine.samples_s) // 2])

    result = run_search(candidates, oracle, settings.search, history)
    account = ProblemAccount(
        configs=len(candidates), measured=len(result.measured), stopped_because=result.stopped_because,
        rule=result.rule, measured_device_s=sum(kernel_s) + sum(vendor_s), wall_s=clock() - start,
        exhaustive_projection_s=sum(kernel_s) / max(1, len(kernel_s)) * len(candidates) + max(vendor_s, default=0.0),
        learned_from=len(history))
    problem = {**account.to_dict(), "problem_id": str(kernels[0].case.problem.problem_id)}
    for m in result.measured:
        outcome = outcomes[by_case[m.case_id].item_id]
        if outcome.status in ("timed", "failed"):  # a failed measurement counts as measured, and says so
            outcome.record = {**(outcome.record or {}), SEARCH_KEY: {"chosen": m.why, "predicted_rank": m.predicted_rank,
                                                                     "problem": problem}}
    for s in result.skipped:
        words = (f"not measured by the search: predicted rank {s.predicted_rank} of {len(candidates)} "
                 f"({s.predicted_seconds * 1e3:.4g} ms predicted, a model); {result.stopped_because}")
        outcomes[by_case[s.case_id].item_id] = Outcome(
            status="skipped", reason=words,
            record={SEARCH_KEY: {"chosen": None, "predicted_rank": s.predicted_rank,
                                 "predicted_s": s.predicted_seconds, "problem": problem}})
    return [outcomes[i.item_id] for i in items]
