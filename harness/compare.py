"""Pair the items of two runs, or of two backends, and judge them.  Data only: no printing.

Contract:
- ``compare_runs(base, new, thresholds)`` pairs the timed items of two ``Results`` of the
  same backends by ``(suite, backend, kind, case_id)`` and returns a ``RunComparison``: one
  ``ItemComparison`` per item with a ``Verdict``.  Runs of different backend sets raise
  ``CompareError``; so does a testbed that differs (target, accelerator, tilelang, driver)
  unless ``allow_testbed_mismatch`` - then the mismatch is carried in the result and
  every report shows it.
- ``judge(base_samples, new_samples, min_effect, alpha)`` is the verdict rule on raw
  samples: a two-sided Mann-Whitney U test AND a minimum relative change of the median.
- When both runs hold the vendor item (``<problem>-vendor``) of the same backend, kind and
  problem, each kernel is also judged by its samples divided by the vendor median of its own
  run (cancelling clock drift between processes); that judgement then decides, and both
  are kept (``decided_by``).
- ``compare_backends(results)`` joins several backends' items on the case id and gives,
  per backend, each config's speedup over its own 1-stage (or serial) point, and its best
  config.  Device time and modeled cycles are separate metrics and are never combined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

from harness.stats import summarize
from harness.store import Results, Testbed, suite_of


class CompareError(ValueError):
    """Two inputs that cannot be compared; ``str()`` is one line saying why."""


class Verdict(str, Enum):
    SAME = "SAME"
    FASTER = "FASTER"
    SLOWER = "SLOWER"
    NOISY = "NOISY"
    NEW = "NEW"
    MISSING = "MISSING"
    FAILED = "FAILED"


TIME = "time"
VENDOR_RATIO = "vendor-ratio"


@dataclass(frozen=True)
class Thresholds:
    """``min_effect``: smallest relative change of the median that counts (0.05 = 5 %).
    ``alpha``: the rank test's significance level.  ``min_effect_by_suite`` overrides
    ``min_effect`` for a suite (``stages`` for suites/test_stages.py)."""

    min_effect: float = 0.05
    alpha: float = 0.05
    min_effect_by_suite: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, value in [("min_effect", self.min_effect), *self.min_effect_by_suite.items()]:
            if not 0 <= value < 10:
                raise ValueError(f"min effect for {name} must be a fraction like 0.05, got {value}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha}")

    def min_effect_for(self, suite: str) -> float:
        return self.min_effect_by_suite.get(suite, self.min_effect)


@dataclass(frozen=True)
class Judgement:
    """One way of judging an item: on its times, or on its ratio to the in-run vendor item."""

    basis: str  # TIME | VENDOR_RATIO
    base_median: float
    new_median: float
    change: float  # new / base - 1: +0.10 is 10 % slower
    p_value: float | None  # None: too few samples to test at all
    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class ItemKey:
    suite: str
    backend: str
    kind: str
    case_id: str


@dataclass(frozen=True)
class ItemComparison:
    key: ItemKey
    problem: str
    verdict: Verdict
    gates: bool  # True: this verdict counts towards the exit code
    decided_by: str | None = None  # TIME | VENDOR_RATIO, for SAME/FASTER/SLOWER/NOISY
    time: Judgement | None = None
    vendor_ratio: Judgement | None = None
    min_effect: float = 0.0
    detail: str = ""

    @property
    def decisive(self) -> Judgement | None:
        return self.vendor_ratio if self.decided_by == VENDOR_RATIO else self.time

    @property
    def is_regression(self) -> bool:
        return self.gates and self.verdict in (Verdict.SLOWER, Verdict.FAILED)


@dataclass(frozen=True)
class TestbedPair:
    backend: str
    base: Testbed
    new: Testbed

    @property
    def differences(self) -> list[str]:
        return self.base.differences(self.new)


@dataclass(frozen=True)
class RunComparison:
    base_path: str
    new_path: str
    thresholds: Thresholds
    items: tuple[ItemComparison, ...]
    testbeds: tuple[TestbedPair, ...]
    notes: tuple[str, ...] = ()

    @property
    def regressions(self) -> list[ItemComparison]:
        return [i for i in self.items if i.is_regression]

    @property
    def has_regression(self) -> bool:
        return bool(self.regressions)

    @property
    def compared(self) -> int:
        """Items with samples on both sides."""
        return sum(1 for i in self.items if i.time is not None)

    @property
    def testbed_mismatches(self) -> list[TestbedPair]:
        return [t for t in self.testbeds if t.differences]

    def counts(self) -> dict[Verdict, int]:
        return {v: sum(1 for i in self.items if i.verdict is v) for v in Verdict}


# -- the verdict rule -----------------------------------------------------------------------


def _median(values: Sequence[float]) -> float:
    return summarize(values).median


def _smallest_p(n_base: int, n_new: int) -> float:
    """The smallest two-sided p-value the exact rank test can give for these sample counts."""
    return min(1.0, 2.0 / math.comb(n_base + n_new, n_base))


def _rank_test(base: Sequence[float], new: Sequence[float]) -> float | None:
    if len(base) < 2 or len(new) < 2:
        return None
    from scipy.stats import mannwhitneyu

    if len(set(base)) == 1 and set(base) == set(new):
        return 1.0
    return float(mannwhitneyu(base, new, alternative="two-sided").pvalue)


def judge(
    base: Sequence[float], new: Sequence[float], min_effect: float, alpha: float, basis: str = TIME
) -> Judgement:
    """SLOWER / FASTER: the rank test rejects "same distribution" (p < alpha) AND the median
    moved by at least ``min_effect``.  NOISY: the median moved by ``min_effect`` or more but
    the test cannot tell the samples apart.  SAME: the median moved by less than
    ``min_effect`` (whatever the test says: a real but small change is not a regression)."""
    base_median, new_median = _median(base), _median(new)
    if base_median > 0:
        change = new_median / base_median - 1
    else:
        change = 0.0 if new_median == 0 else math.inf
    p_value = _rank_test(base, new)
    big = abs(change) >= min_effect
    significant = p_value is not None and p_value < alpha
    moved = f"median {change:+.1%}"
    if big and significant:
        verdict = Verdict.SLOWER if change > 0 else Verdict.FASTER
        reason = f"{moved}, p={p_value:.3g} < {alpha:g}"
    elif big:
        verdict = Verdict.NOISY
        if p_value is None or _smallest_p(len(base), len(new)) >= alpha:
            reason = f"{moved}, but {len(base)} vs {len(new)} samples are too few for p < {alpha:g}"
        else:
            reason = f"{moved}, but p={p_value:.3g} >= {alpha:g}: the samples overlap"
    else:
        verdict = Verdict.SAME
        tested = "" if p_value is None else f", p={p_value:.3g}"
        reason = f"{moved}{tested}; under the {min_effect:.0%} minimum effect"
    return Judgement(basis, base_median, new_median, change, p_value, verdict, reason)


# -- pairing two runs -----------------------------------------------------------------------


def _key(rec: dict[str, Any]) -> ItemKey:
    return ItemKey(suite_of(rec), rec["backend"], rec["kind"], rec["case_id"])


def _problem_id(rec: dict[str, Any]) -> str:
    case_id = rec["case_id"]
    if rec.get("kernel") == "vendor" or case_id.endswith("-vendor"):
        return case_id[: -len("-vendor")]
    config = rec.get("config") or {}
    marker = f"-bm{config.get('block_M')}-"
    return case_id.split(marker, 1)[0] if marker in case_id else case_id


def _is_vendor(rec: dict[str, Any]) -> bool:
    return rec.get("kernel") == "vendor" or rec["case_id"].endswith("-vendor")


def _index(results: Results, items: Iterable[dict[str, Any]]) -> dict[ItemKey, dict[str, Any]]:
    out: dict[ItemKey, dict[str, Any]] = {}
    for rec in items:
        key = _key(rec)
        if key in out:
            raise CompareError(f"{results.path}: item {key.kind}-{key.backend}-{key.case_id} appears twice")
        out[key] = rec
    return out


def _vendor_medians(timed: Mapping[ItemKey, dict[str, Any]]) -> dict[tuple[str, str, str, str], float]:
    """(suite, backend, kind, problem) -> median of the vendor item in that run."""
    return {
        (k.suite, k.backend, k.kind, _problem_id(r)): _median(r["samples_s"])
        for k, r in timed.items()
        if _is_vendor(r)
    }


def _check_backends(base: Results, new: Results) -> None:
    if set(base.backends) != set(new.backends):
        raise CompareError(
            f"different backends: {base.name} has {', '.join(base.backends) or 'none'}, "
            f"{new.name} has {', '.join(new.backends) or 'none'}; a cross-run compare needs runs of the same "
            "backends (use --across-backends to compare backends)"
        )


def _testbeds(base: Results, new: Results, allow_mismatch: bool) -> tuple[TestbedPair, ...]:
    pairs = tuple(TestbedPair(b, base.testbed(b), new.testbed(b)) for b in sorted(base.backends))
    for pair in pairs:
        if pair.differences and not allow_mismatch:
            raise CompareError(
                f"testbed differs for {pair.backend}: {'; '.join(pair.differences)}; compare runs of one testbed, "
                "or pass --allow-testbed-mismatch to compare anyway (the report says so)"
            )
    return pairs


def _ratio_judgement(
    key: ItemKey, base_rec: dict, new_rec: dict, base_vendor: Mapping, new_vendor: Mapping, min_effect: float, alpha: float
) -> Judgement | None:
    vendor_key = (key.suite, key.backend, key.kind, _problem_id(base_rec))
    if _is_vendor(base_rec) or vendor_key not in base_vendor or vendor_key not in new_vendor:
        return None
    b_ref, n_ref = base_vendor[vendor_key], new_vendor[vendor_key]
    if b_ref <= 0 or n_ref <= 0:
        return None
    base_ratio = [s / b_ref for s in base_rec["samples_s"]]
    new_ratio = [s / n_ref for s in new_rec["samples_s"]]
    return judge(base_ratio, new_ratio, min_effect, alpha, basis=VENDOR_RATIO)


def _timed_pair(key, base_rec, new_rec, vendors, thresholds, ratio_allowed) -> ItemComparison:
    min_effect = thresholds.min_effect_for(key.suite)
    by_time = judge(base_rec["samples_s"], new_rec["samples_s"], min_effect, thresholds.alpha)
    by_ratio = None
    if ratio_allowed(key.backend):
        by_ratio = _ratio_judgement(key, base_rec, new_rec, vendors[0], vendors[1], min_effect, thresholds.alpha)
    decided = by_ratio or by_time
    vendor = _is_vendor(base_rec)
    detail = "vendor reference item: shown, not gated (its drift is what the ratio removes)" if vendor else ""
    return ItemComparison(
        key=key,
        problem=_problem_id(base_rec),
        verdict=decided.verdict,
        gates=not vendor,
        decided_by=decided.basis,
        time=by_time,
        vendor_ratio=by_ratio,
        min_effect=min_effect,
        detail=detail,
    )


def _first_line(text: Any, limit: int = 140) -> str:
    lines = [ln.strip() for ln in str(text or "").splitlines() if ln.strip()]
    line = lines[-1] if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _unpaired(key, rec, verdict, gates, detail, thresholds) -> ItemComparison:
    return ItemComparison(
        key=key,
        problem=_problem_id(rec),
        verdict=verdict,
        gates=gates,
        min_effect=thresholds.min_effect_for(key.suite),
        detail=detail,
    )


def compare_runs(
    base: Results, new: Results, thresholds: Thresholds | None = None, allow_testbed_mismatch: bool = False
) -> RunComparison:
    thresholds = thresholds or Thresholds()
    _check_backends(base, new)
    testbeds = _testbeds(base, new, allow_testbed_mismatch)
    base_timed, new_timed = _index(base, base.records), _index(new, new.records)
    base_failed, new_failed = _index(base, base.failed), _index(new, new.failed)
    new_skipped = _index(new, new.skipped)
    vendors = (_vendor_medians(base_timed), _vendor_medians(new_timed))
    libraries = {t.backend: (t.base.vendor_library, t.new.vendor_library) for t in testbeds}
    notes = [
        f"{b}: vendor library differs ({old} -> {now}); ratios to the vendor item not used"
        for b, (old, now) in libraries.items()
        if old != now
    ]

    def ratio_allowed(backend: str) -> bool:
        old, now = libraries.get(backend, (None, None))
        return old == now

    items: list[ItemComparison] = []
    for key, base_rec in base_timed.items():
        if key in new_timed:
            items.append(_timed_pair(key, base_rec, new_timed[key], vendors, thresholds, ratio_allowed))
        elif key in new_failed:
            fail = new_failed[key]
            detail = f"failed in new [{fail.get('stage')}]: {_first_line(fail.get('error'))}"
            items.append(_unpaired(key, base_rec, Verdict.FAILED, not _is_vendor(base_rec), detail, thresholds))
        elif key in new_skipped:
            detail = f"skipped in new: {_first_line(new_skipped[key].get('reason'))}"
            items.append(_unpaired(key, base_rec, Verdict.MISSING, False, detail, thresholds))
        else:
            items.append(_unpaired(key, base_rec, Verdict.MISSING, False, "not in new", thresholds))
    for key, fail in new_failed.items():
        if key in base_timed:
            continue
        was = "also failed in base" if key in base_failed else "not timed in base"
        detail = f"failed in new [{fail.get('stage')}]: {_first_line(fail.get('error'))} ({was})"
        items.append(_unpaired(key, fail, Verdict.FAILED, key not in base_failed, detail, thresholds))
    for key, rec in new_timed.items():
        if key not in base_timed:
            detail = "failed in base" if key in base_failed else "not in base"
            items.append(_unpaired(key, rec, Verdict.NEW, False, detail, thresholds))
    return RunComparison(
        base_path=base.path,
        new_path=new.path,
        thresholds=thresholds,
        items=tuple(items),
        testbeds=testbeds,
        notes=tuple(notes),
    )


# -- across backends ------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """What a backend's numbers are: ``device time`` (seconds, measured) or ``modeled
    cycles/core`` (cycles, a model).  Lower is better for both; they are never mixed."""

    name: str
    unit: str  # "s" | "cycles"
    measured: bool
    method: str


DEVICE_TIME = "device time"
MODELED_CYCLES = "modeled cycles/core"


@dataclass(frozen=True)
class StagePoint:
    backend: str
    case_id: str
    problem: str
    tile: str  # "128x256x64 t256" (+ cores / offset)
    loop_id: str  # "auto-s3" | "manual" | "serial"
    num_stages: int | None
    loop_form: str
    value: float  # in the backend's Metric unit
    speedup: float | None  # reference value / value; None without a reference point
    reference: str | None  # the case id speedup is relative to
    tflops: float | None = None


@dataclass(frozen=True)
class BackendStages:
    backend: str
    metric: Metric
    testbed: Testbed
    source: str  # the file it came from
    points: tuple[StagePoint, ...]
    best: tuple[StagePoint, ...]  # one per problem
    vendor: Mapping[str, float] = field(default_factory=dict)  # problem -> vendor median (device time only)

    def point(self, case_id: str) -> StagePoint | None:
        return next((p for p in self.points if p.case_id == case_id), None)


@dataclass(frozen=True)
class StageRow:
    case_id: str
    problem: str
    tile: str
    loop_id: str
    num_stages: int | None


@dataclass(frozen=True)
class AcrossBackends:
    backends: tuple[BackendStages, ...]
    rows: tuple[StageRow, ...]  # union of case ids, in problem / tile / loop order
    notes: tuple[str, ...] = ()


LOOP_ORDER = {"serial": 100, "manual": 101}


def _tile_label(config: Mapping[str, Any]) -> str:
    label = f"{config['block_M']}x{config['block_N']}x{config['block_K']}"
    if config.get("threads") is not None:
        label += f" t{config['threads']}"
    if config.get("num_cores") is not None:
        label += f" c{config['num_cores']}"
    if config.get("enable_offset"):
        label += " offset"
    return label


def _loop_id(config: Mapping[str, Any]) -> str:
    return f"auto-s{config['num_stages']}" if config.get("loop_form") == "auto" else str(config.get("loop_form"))


def _modeled_cycles(rec: dict[str, Any]) -> float | None:
    model = (rec.get("plan") or {}).get("schedule_model") or {}
    value = model.get("modeled_cycles_per_core")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _backend_metric(records: list[dict[str, Any]]) -> tuple[Metric, list[tuple[dict, float]]] | None:
    kernels = [r for r in records if not _is_vendor(r) and r.get("config")]
    device = [r for r in kernels if r["kind"] == "device"]
    if device:
        methods = sorted({str(r.get("method")) for r in device})
        return Metric(DEVICE_TIME, "s", True, ", ".join(methods)), [(r, _median(r["samples_s"])) for r in device]
    modeled = [(r, _modeled_cycles(r)) for r in kernels if r["kind"] == "compile"]
    modeled = [(r, v) for r, v in modeled if v is not None]
    if modeled:
        unit = ((modeled[0][0].get("plan") or {}).get("schedule_model") or {}).get("unit", "cycles (model)")
        return Metric(MODELED_CYCLES, "cycles", False, unit), modeled
    return None


def _reference_case(points: list[tuple[dict, float]]) -> dict[tuple[str, str], tuple[str, float]]:
    """(problem, tile) -> (case id, value) of the 1-stage point, or the serial one."""
    refs: dict[tuple[str, str], tuple[str, float]] = {}
    for preferred in ("auto-s1", "serial"):
        for rec, value in points:
            group = (_problem_id(rec), _tile_label(rec["config"]))
            if group not in refs and _loop_id(rec["config"]) == preferred:
                refs[group] = (rec["case_id"], value)
    return refs


def _stage_points(backend: str, points: list[tuple[dict, float]]) -> list[StagePoint]:
    refs = _reference_case(points)
    out = []
    for rec, value in points:
        config = rec["config"]
        group = (_problem_id(rec), _tile_label(config))
        ref = refs.get(group)
        out.append(
            StagePoint(
                backend=backend,
                case_id=rec["case_id"],
                problem=group[0],
                tile=group[1],
                loop_id=_loop_id(config),
                num_stages=config.get("num_stages"),
                loop_form=str(config.get("loop_form")),
                value=value,
                speedup=ref[1] / value if ref and value > 0 else None,
                reference=ref[0] if ref else None,
                tflops=(rec.get("throughput") or {}).get("tflops") if rec["kind"] == "device" else None,
            )
        )
    return out


def _best(points: list[StagePoint]) -> tuple[StagePoint, ...]:
    best: dict[str, StagePoint] = {}
    for p in points:  # ties keep the earlier (shallower) config
        if p.problem not in best or p.value < best[p.problem].value:
            best[p.problem] = p
    return tuple(best.values())


def _sort_key(row: StageRow) -> tuple:
    stages = row.num_stages if row.loop_id.startswith("auto-") and row.num_stages is not None else LOOP_ORDER.get(row.loop_id, 200)
    return (row.problem, row.tile, stages, row.loop_id)


def compare_backends(results: Sequence[Results]) -> AcrossBackends:
    """Join every backend found in ``results`` on the case id.  Needs two backends with a
    kernel metric (device time, or Ascend's modeled cycles)."""
    by_backend: dict[str, tuple[Results, list[dict[str, Any]]]] = {}
    for res in results:
        for rec in res.records:
            if rec["backend"] in by_backend and by_backend[rec["backend"]][0] is not res:
                raise CompareError(
                    f"backend {rec['backend']} appears in both {by_backend[rec['backend']][0].name} and {res.name}; "
                    "--across-backends takes one run per backend"
                )
            by_backend.setdefault(rec["backend"], (res, []))[1].append(rec)
    stages: list[BackendStages] = []
    notes: list[str] = []
    for backend, (res, records) in sorted(by_backend.items()):
        found = _backend_metric(records)
        if found is None:
            notes.append(f"{backend} ({res.name}): no device time and no modeled cycles (compile times only); left out")
            continue
        metric, values = found
        points = _stage_points(backend, values)
        vendor = {
            _problem_id(r): _median(r["samples_s"]) for r in records if _is_vendor(r) and r["kind"] == "device"
        }
        stages.append(BackendStages(backend, metric, res.testbed(backend), res.path, tuple(points), _best(points), vendor))
    if len(stages) < 2:
        have = ", ".join(f"{s.backend} ({s.metric.name})" for s in stages) or "none"
        raise CompareError(
            f"--across-backends needs two backends with device time or modeled cycles; got {have}"
            + (f" ({'; '.join(notes)})" if notes else "")
        )
    rows = {
        p.case_id: StageRow(p.case_id, p.problem, p.tile, p.loop_id, p.num_stages) for s in stages for p in s.points
    }
    return AcrossBackends(tuple(stages), tuple(sorted(rows.values(), key=_sort_key)), tuple(notes))
