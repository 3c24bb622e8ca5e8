"""The one measurement loop: warmup, interleaved rounds, stopping, caps, drift, re-measure.

Contract: ``measure_items(session, items, policy, clock, sleep, progress)`` returns one ``Outcome``
per item, in order: prepare, warm the clock, ``rounds`` round-robin passes of ``batch`` samples,
more until the criterion or a cap (CAPPED); a throttled batch is retaken twice at most; a drifting
item is re-measured once with its vendor item (DRIFT if again).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..core.cases import MeasurePolicy, VendorCase
from ..core.record import BenchItem, item_record
from .criteria import StoppingCriterion, make_criterion
from .device_session import Batch, DeviceSession, Prepared
from .drift import DriftFinding, detect_drift
from .interrupt import interrupted_outcome
from .outcome import Outcome, failed
from ..core.stats import median


def run_failure(exc: BaseException, plan: Any = None) -> Outcome:
    return interrupted_outcome(exc, "run", False) or failed("run", f"{type(exc).__name__}: {exc}", plan, exc=exc)


SETTLED = 0.01
THROTTLE_RETRIES = 2
THROTTLE_PAUSE_S = 0.05


@dataclass(frozen=True)
class LoopProgress:
    """``done`` units (items prepared, batches taken) of ``total``; ``round`` 0 while preparing."""

    done: int
    total: int
    items: int
    round: int
    min_rounds: int
    finished: bool = False  # the call's last report (``done == total``)


ProgressCallback = Callable[[LoopProgress], None]


@dataclass
class _BatchRow:  # one batch as the record keeps it
    attempt: int
    round: int
    n: int
    median_s: float
    telemetry: Mapping[str, object] | None
    throttled: bool
    discarded_before: int
    dropped: bool = False  # a timer change dropped it

    def as_json(self) -> dict[str, object]:
        row = asdict(self)
        if not self.dropped:
            del row["dropped"]
        return row


@dataclass
class _Warmup:  # the clock warmup
    item: str | None = None  # None: no item ran it
    batches: int = 0
    settled: bool = False
    seconds: float = 0.0
    telemetry: Mapping[str, object] | None = None

    def as_json(self) -> dict[str, object]:
        return asdict(self) if self.item is not None else {"batches": self.batches, "settled": self.settled}


@dataclass
class _Track:
    item: BenchItem
    prepared: Prepared
    method: str
    samples: list[float] = field(default_factory=list)
    batches: list[_BatchRow] = field(default_factory=list)  # every attempt's batches
    notes: list[str] = field(default_factory=list)
    attempt: int = 0
    seconds: float = 0.0
    done: bool = False
    stopped_by: str = ""
    drift: DriftFinding | None = None
    first_drift: DriftFinding | None = None
    error: Outcome | None = None

    def current(self) -> list[_BatchRow]:
        return [b for b in self.batches if b.attempt == self.attempt and not b.dropped]

    def medians(self) -> list[float]:
        return [b.median_s for b in self.current()]


@dataclass
class _Loop:
    session: DeviceSession
    policy: MeasurePolicy
    criterion: StoppingCriterion
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    warm_clock_mhz: float | None = None
    progress: ProgressCallback | None = None
    items: int = 0
    done_units: int = 0
    unprepared: int = 0
    round_now: int = 0
    remaining: dict[int, int] = field(default_factory=dict)  # id(track) -> batches still expected

    def tick(self, units: int = 1, finished: bool = False) -> None:
        self.done_units += units
        if self.progress is None:
            return
        total = self.done_units if finished else max(self.done_units + 1, self.done_units + self.unprepared + sum(self.remaining.values()))
        report = LoopProgress(self.done_units, total, self.items, self.round_now, self.policy.rounds, finished)
        try:
            self.progress(report)
        except Exception:  # noqa: BLE001 - a progress line must never cost a measurement
            self.progress = None

    def take(self, track: _Track, k: int, round_index: int) -> None:
        """One batch of ``track`` into its samples (with throttle retries and method fallback)."""
        discarded = 0
        while True:
            start = self.clock()
            batch: Batch = self.session.sample(track.item, k)
            track.seconds += self.clock() - start
            clock_mhz = (batch.telemetry or {}).get("sm_clock_mhz")
            throttled = bool(self.warm_clock_mhz and clock_mhz and clock_mhz < self.policy.throttle_threshold * self.warm_clock_mhz)
            if not throttled or discarded >= THROTTLE_RETRIES:
                break
            discarded += 1
            self.sleep(THROTTLE_PAUSE_S)
        if discarded:
            kept = " (kept the last: still throttled)" if throttled else ""
            track.notes.append(f"round {round_index + 1}: {discarded} batch(es) discarded, SM clock below "
                               f"{self.policy.throttle_threshold:.0%} of the warm {self.warm_clock_mhz:.0f} MHz{kept}")
        if batch.method != track.method:
            track.notes.append(f"timer changed {track.method} -> {batch.method}: earlier samples dropped")
            track.method = batch.method
            track.samples.clear()
            for b in track.current():
                b.dropped = True
        # a timer's notes from its batches (why it fell back, what a call of several kernels is timed as)
        track.notes.extend(n for n in batch.notes if n not in track.notes and n not in track.prepared.notes)
        track.samples.extend(batch.samples_s)
        track.batches.append(_BatchRow(track.attempt, round_index, len(batch.samples_s), median(batch.samples_s),
                                       batch.telemetry, throttled, discarded))

    def stop_reason(self, track: _Track, rounds_done: int) -> str:
        if rounds_done >= self.policy.rounds and self.criterion.is_finished(track.samples):
            return "criterion"
        if len(track.samples) >= self.policy.max_samples:
            return "max_samples"
        if track.seconds >= self.policy.max_seconds and rounds_done >= self.policy.rounds:
            return "max_seconds"
        return ""

    def rounds(self, tracks: Sequence[_Track], interleave: bool) -> None:
        groups = [list(tracks)] if interleave else [[t] for t in tracks]
        self.remaining.update((id(t), self.policy.rounds) for t in tracks)
        for group in groups:
            for t in group:
                t.samples, t.done, t.stopped_by, t.seconds = [], False, "", 0.0
            r = 0
            while active := [t for t in group if not t.done and t.error is None]:
                self.round_now = r + 1
                shift = r % len(active)
                for t in active[shift:] + active[:shift]:
                    k = min(self.policy.batch, max(1, self.policy.max_samples - len(t.samples)))
                    try:
                        self.take(t, k, r)
                    except Exception as exc:  # noqa: BLE001 - the item fails with these words
                        t.error = run_failure(exc, t.prepared.plan)
                    self.remaining[id(t)] = 0 if t.error is not None else max(0, self.remaining[id(t)] - 1)
                    self.tick()
                r += 1
                for t in active:
                    t.stopped_by = self.stop_reason(t, r)
                    t.done = bool(t.stopped_by)
                    # not done: the criterion wants more
                    self.remaining[id(t)] = max(1, self.remaining[id(t)]) if not t.done and t.error is None else 0

    def warm_up(self, tracks: Sequence[_Track]) -> _Warmup:
        info = _Warmup()
        for first in tracks:
            try:
                info = self._settle(first)
                break
            except Exception as exc:  # noqa: BLE001 - the item fails with these words
                first.error = run_failure(exc, first.prepared.plan)
        for t in tracks:
            if t.error is None and self.policy.warmup > 0:
                try:
                    self.session.sample(t.item, self.policy.warmup)
                except Exception as exc:  # noqa: BLE001
                    t.error = run_failure(exc, t.prepared.plan)
        return info

    def _settle(self, first: _Track) -> _Warmup:
        start = self.clock()
        prev: Batch | None = None
        info = _Warmup(item=first.item.item_id)
        while True:
            batch = self.session.sample(first.item, self.policy.batch)
            info.batches += 1
            if prev is not None and _settled(prev, batch):
                info.settled = True
                break
            if self.clock() - start >= self.policy.clock_warmup_s and info.batches >= 2:
                break
            prev = batch
        info.seconds, info.telemetry = self.clock() - start, batch.telemetry
        self.warm_clock_mhz = (batch.telemetry or {}).get("sm_clock_mhz")
        return info


def _settled(prev: Batch, batch: Batch) -> bool:
    def change(a: float | None, b: float | None) -> float:
        return abs(b - a) / a if a and b else 0.0

    clocks = [(b.telemetry or {}).get("sm_clock_mhz") for b in (prev, batch)]
    return change(*clocks) <= SETTLED and change(median(prev.samples_s), median(batch.samples_s)) <= SETTLED


def _detect_drift(tracks: Iterable[_Track], threshold: float) -> None:
    for t in tracks:
        if t.error is None:
            t.drift = detect_drift(t.medians(), threshold)


def _vendor_of(tracks: Sequence[_Track]) -> dict[tuple[str, Any], _Track]:
    return {(t.item.backend, t.item.case.problem): t for t in tracks if isinstance(t.item.case, VendorCase)}


def _round_medians(track: _Track) -> list[float]:
    by_round: dict[int, list[float]] = {}
    for b in track.current():
        by_round.setdefault(b.round, []).append(b.median_s)
    return [median(v) for _, v in sorted(by_round.items())]


def _vendor_rounds(track: _Track, vendor: _Track | None) -> list[float] | None:
    if vendor is None or vendor is track:
        return None
    mine = {(b.attempt, b.round): b.median_s for b in track.current()}
    theirs = {(b.attempt, b.round): b.median_s for b in vendor.batches if not b.dropped}
    ratios = [mine[key] / theirs[key] for key in sorted(mine) if key in theirs and theirs[key] > 0]
    return ratios or None


def _record(loop: _Loop, track: _Track, vendor: _Track | None, warmup: _Warmup | None,
            interleave: bool) -> Outcome:
    p = track.prepared
    notes = list(p.notes) + track.notes
    if track.first_drift is not None:
        notes.append(f"re-measured once: the first attempt drifted ({track.first_drift.words})")
    if track.drift is not None:
        notes.append(f"DRIFT: {track.drift.words}; its number is not clean")
    criterion, policy = loop.criterion, loop.policy
    if track.stopped_by != "criterion":
        cap = f"{policy.max_samples}-sample" if track.stopped_by == "max_samples" else f"{policy.max_seconds:g} s"
        notes.append(f"CAPPED: stopped at the {cap} cap before the {criterion.name} criterion was met "
                     f"(value {criterion.progress(track.samples):.4g}, {criterion.describe()['params']})")
    capped = "CAPPED" if track.stopped_by != "criterion" else "clean"
    status = "DRIFT" if track.drift is not None else capped
    measurement = {
        "status": status,
        "criterion": {**loop.criterion.describe(), "met": loop.criterion.is_finished(track.samples), "value": loop.criterion.progress(track.samples)},
        "stopped_by": track.stopped_by, "interleaved": interleave, "batch": loop.policy.batch, "min_rounds": loop.policy.rounds,
        "round_medians_s": _round_medians(track), "vs_vendor_rounds": _vendor_rounds(track, vendor),
        "batches": [b.as_json() for b in track.batches],
        "drift": track.drift.to_dict() if track.drift else None,
        "first_attempt_drift": track.first_drift.to_dict() if track.first_drift else None,
        "remeasured": track.attempt > 0, "warmup": warmup.as_json() if warmup else {},
        "caps": {"max_samples": loop.policy.max_samples, "max_seconds": loop.policy.max_seconds},
        "drift_threshold": loop.policy.drift_threshold, "sampling_seconds": track.seconds}
    samples = tuple(track.samples)
    record = item_record(track.item, samples, method=track.method, plan=p.plan, budget=p.budget, check=p.check,
                         l2_flush_bytes=p.l2_flush_bytes, notes=notes, measurement=measurement, seed=p.seed, dialect=p.dialect,
                         input_dtypes=p.input_dtypes)
    record["summary"]["status"] = status
    return Outcome(status="timed", samples_s=samples, record=record, plan=p.plan)


def measure_items(session: DeviceSession, items: Sequence[BenchItem], policy: MeasurePolicy,
                  clock: Callable[[], float] = time.perf_counter, sleep: Callable[[float], None] = time.sleep,
                  progress: ProgressCallback | None = None) -> list[Outcome]:
    loop = _Loop(session, policy, make_criterion(policy.criterion), clock, sleep, progress=progress, items=len(items),
                 unprepared=len(items))
    loop.remaining = {-(i + 1): policy.rounds for i in range(len(items))}  # each item's minimum rounds, before it exists
    results: dict[str, Outcome] = {}
    tracks: list[_Track] = []
    for index, item in enumerate(items):
        try:
            prepared = session.prepare(item)
        except Exception as exc:  # noqa: BLE001 - the item fails with these words
            prepared = run_failure(exc)
        loop.unprepared -= 1
        loop.remaining.pop(-(index + 1))
        if isinstance(prepared, Outcome):
            results[item.item_id] = prepared
        else:
            tracks.append(_Track(item, prepared, prepared.method))
            loop.remaining[id(tracks[-1])] = policy.rounds
        loop.tick()
    warmup = loop.warm_up(tracks) if tracks else None
    if tracks:
        loop.rounds([t for t in tracks if t.error is None], policy.interleave)
    vendors = _vendor_of(tracks)
    _detect_drift(tracks, policy.drift_threshold)
    drifted = [t for t in tracks if t.drift is not None and t.error is None]
    if drifted and policy.remeasure_on_drift:
        again = {id(t): t for t in drifted}
        for t in drifted:
            vendor = vendors.get((t.item.backend, t.item.case.problem))
            if vendor is not None and vendor.error is None:
                again.setdefault(id(vendor), vendor)
        for t in again.values():
            t.first_drift, t.drift = t.drift, None
            t.attempt += 1
        loop.rounds(list(again.values()), policy.interleave)
        _detect_drift(again.values(), policy.drift_threshold)
    for t in tracks:
        vendor = vendors.get((t.item.backend, t.item.case.problem))
        results[t.item.item_id] = t.error or _record(loop, t, vendor, warmup, policy.interleave)
    loop.tick(0, finished=True)
    return [results[i.item_id] for i in items]
