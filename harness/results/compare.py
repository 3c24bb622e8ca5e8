"""Pair the items of two runs, or of two backends, and judge them.  Data only: no printing.

Contract:
- ``compare_runs(base, new, thresholds)`` pairs the items of two ``Results`` of the same
  backends by ``(suite, backend, kind, case_id)`` and returns a ``RunComparison`` with one
  ``ItemComparison`` (a ``Verdict``) per item.  Runs of different backend sets raise
  ``CompareError``; so does a testbed that differs (target, accelerator, tilelang, driver)
  unless ``allow_testbed_mismatch``, and then every report shows the mismatch.
- The rule (``judge``): SLOWER / FASTER = a two-sided Mann-Whitney U test on the raw samples
  gives p < alpha AND the median moved by at least the minimum effect AND by at least the
  group's noise floor; NOISY = it moved that much without that evidence; SAME = it moved
  less than the minimum effect.  NEW / MISSING / FAILED for unpaired items.
- In-run reference: a kernel is also judged with its samples divided by a reference median
  of its own run - the vendor item of its problem (``VENDOR_RATIO``), else the geometric
  mean of the other kernels of its group (``RUN_RATIO``, needs 4 of them).  That judgement
  cancels drift between processes (GPU clocks, a shared machine's load) and decides;
  ``decided_by`` says which one did and both are kept.
- Noise floor: one item's samples are taken back to back, so a rank test cannot see the
  machine's state changing between items.  With 6+ kernels in a group, the robust spread of
  their reference-relative changes is measured and moves under 4 of those SDs are NOISY.
- Gating: only kernels gate.  ``is_regression`` = SLOWER, or FAILED where the base did not
  fail.  Vendor items, whole-group drift and modeled-cycle changes are shown, never gated.
- ``compare_backends(results)`` joins several backends' items on the case id and gives,
  per backend, each config's speedup over its own 1-stage (or serial) point, and its best
  config.  Device time and modeled cycles are separate metrics and are never combined.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

from harness.measure.stats import summarize
from harness.results import verdicts
from harness.results.store import Results, Testbed, suite_of


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
RUN_RATIO = "run-ratio"
MIN_RUN_REFERENCE_ITEMS = 4  # other items a run-ratio reference needs
MIN_SPREAD_ITEMS = 6  # items a group needs before its item-to-item spread is estimated
NOISE_K = 4.0  # noise floor = NOISE_K robust standard deviations of that spread


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
    """One way of judging an item: on its times, or on its times relative to a reference
    measured in the same run (``VENDOR_RATIO``, ``RUN_RATIO``)."""

    basis: str  # TIME | VENDOR_RATIO | RUN_RATIO
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
    """``time`` judges the raw samples; ``relative`` (when a reference exists in both runs)
    judges them divided by that run's reference, and then decides (``decided_by``)."""

    key: ItemKey
    problem: str
    verdict: Verdict
    gates: bool  # True: this verdict counts towards the exit code
    decided_by: str | None = None  # TIME | VENDOR_RATIO | RUN_RATIO, for SAME/FASTER/SLOWER/NOISY
    time: Judgement | None = None
    relative: Judgement | None = None
    reference: str = ""  # what ``relative`` divides by
    min_effect: float = 0.0
    detail: str = ""
    rule: str = "rank test"  # which rule decided (harness/results/verdicts.py)

    @property
    def decisive(self) -> Judgement | None:
        return self.relative if self.relative is not None else self.time

    @property
    def is_regression(self) -> bool:
        return self.gates and self.verdict in (Verdict.SLOWER, Verdict.FAILED)


@dataclass(frozen=True)
class Drift:
    """How much a whole group of items (one backend, kind and suite) moved together:
    the geometric mean of their median ratios.  Shown, never gated: it cannot be told
    apart from the machine's state (clocks, load) - which is why items are judged
    relative to a reference of their own run."""

    suite: str
    backend: str
    kind: str
    items: int
    change: float
    vendor_change: float | None  # the vendor item's own change, when there is one
    spread: float | None = None  # robust SD of the items' changes relative to their reference
    noise_floor: float = 0.0  # a relative change this small is not resolved (NOISE_K x spread)


@dataclass(frozen=True)
class ModelChange:
    """An item whose modeled cycles per core (Ascend Z3 schedule model) differ between the
    runs.  The model is deterministic, so any change is a change of schedule; it is shown,
    never gated, and never mixed with times."""

    key: ItemKey
    base_cycles: float
    new_cycles: float
    base_ii: Any = None
    new_ii: Any = None


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
    drifts: tuple[Drift, ...] = ()
    model_changes: tuple[ModelChange, ...] = ()
    notes: tuple[str, ...] = ()
    shifts: tuple[verdicts.RunShift, ...] = ()  # whole-run moves (verdicts.run_shift)

    @property
    def regressions(self) -> list[ItemComparison]:
        return [i for i in self.items if i.is_regression]

    @property
    def gating_shifts(self) -> list[verdicts.RunShift]:
        return [s for s in self.shifts if s.gates]

    @property
    def has_regression(self) -> bool:
        return bool(self.regressions) or bool(self.gating_shifts)

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
    p_value = float(mannwhitneyu(base, new, alternative="two-sided").pvalue)
    # With ties scipy falls back to the normal approximation, which for a handful of samples
    # can go below what any arrangement of them allows; never report less than that.
    return max(p_value, _smallest_p(len(base), len(new)))


def judge(
    base: Sequence[float],
    new: Sequence[float],
    min_effect: float,
    alpha: float,
    basis: str = TIME,
    noise_floor: float = 0.0,
    noise_source: str = "",
) -> Judgement:
    """SLOWER / FASTER: the rank test rejects "same distribution" (p < alpha) AND the median
    moved by at least ``min_effect`` AND by at least ``noise_floor`` (the item-to-item
    spread of this pair of runs, see ``noise_floor``).  NOISY: the median moved by
    ``min_effect`` or more but the test cannot tell the samples apart, or the move is inside
    the noise floor.  SAME: the median moved by less than ``min_effect`` (whatever the test
    says: a real but small change is not a regression)."""
    base_median, new_median = _median(base), _median(new)
    if base_median > 0:
        change = new_median / base_median - 1
    else:
        change = 0.0 if new_median == 0 else math.inf
    p_value = _rank_test(base, new)
    big = abs(change) >= min_effect
    significant = p_value is not None and p_value < alpha
    moved = f"median {change:+.1%}"
    if big and significant and abs(change) < noise_floor:
        verdict = Verdict.NOISY
        reason = f"{moved}, p={p_value:.3g}, but inside the ±{noise_floor:.0%} noise floor ({noise_source})"
    elif big and significant:
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


def problem_of(rec: dict[str, Any]) -> str:
    """The problem id of a record: ``gemm-1024x1024x1024-f16`` of any of its cases or its vendor item."""
    case_id = rec["case_id"]
    if _is_vendor(rec):
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


Group = tuple[str, str, str]  # suite, backend, kind


@dataclass(frozen=True)
class _Paired:
    """Items timed in both runs, with their medians, grouped for the in-run references."""

    base: Mapping[ItemKey, dict[str, Any]]
    new: Mapping[ItemKey, dict[str, Any]]

    def keys(self, group: Group) -> list[ItemKey]:
        return [k for k in self.base if k in self.new and (k.suite, k.backend, k.kind) == group]

    def groups(self) -> list[Group]:
        return sorted({(k.suite, k.backend, k.kind) for k in self.base if k in self.new})

    def medians(self, key: ItemKey) -> tuple[float, float]:
        return _median(self.base[key]["samples_s"]), _median(self.new[key]["samples_s"])


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _reference(paired: _Paired, key: ItemKey, vendor_ok: bool) -> tuple[str, str, float, float] | None:
    """(basis, description, base reference, new reference) for judging ``key`` relative to
    its own run: the vendor item of its problem, else the geometric mean of the other
    kernels of its group (suite, backend, kind) timed in both runs."""
    rec = paired.base[key]
    if _is_vendor(rec):
        return None
    group = (key.suite, key.backend, key.kind)
    vendor = ItemKey(key.suite, key.backend, key.kind, f"{problem_of(rec)}-vendor")
    if vendor_ok and vendor in paired.base and vendor in paired.new:
        base_ref, new_ref = paired.medians(vendor)
        if base_ref > 0 and new_ref > 0:
            return VENDOR_RATIO, f"{vendor.case_id} in the same run", base_ref, new_ref
    others = [k for k in paired.keys(group) if k != key and not _is_vendor(paired.base[k])]
    if len(others) < MIN_RUN_REFERENCE_ITEMS:
        return None
    medians = [paired.medians(k) for k in others]
    if any(b <= 0 or n <= 0 for b, n in medians):
        return None
    description = f"geometric mean of the {len(others)} other {key.kind} items of the run"
    return RUN_RATIO, description, _geomean([b for b, _ in medians]), _geomean([n for _, n in medians])


def _relative_change(paired: _Paired, key: ItemKey, reference: tuple[str, str, float, float]) -> float:
    base_median, new_median = paired.medians(key)
    return (new_median / reference[3]) / (base_median / reference[2]) - 1


def _noise_floor(paired: _Paired, group: Group, references: Mapping[ItemKey, tuple]) -> tuple[float | None, float]:
    """Robust spread (1.4826 x MAD of log changes) of the group's kernels' reference-relative
    changes, and the floor NOISE_K x spread.  It captures what the rank test cannot see:
    one item's samples are taken back to back, so they share the machine's state (a load
    burst on a shared VM, a clock step), and differ from run to run as a block."""
    logs = [
        math.log1p(_relative_change(paired, k, references[k]))
        for k in paired.keys(group)
        if references.get(k) is not None
    ]
    if len(logs) < MIN_SPREAD_ITEMS:
        return None, 0.0
    center = statistics.median(logs)
    spread = 1.4826 * statistics.median(abs(x - center) for x in logs)
    return math.expm1(spread), math.expm1(NOISE_K * spread)


def _timed_pair(
    paired: _Paired, key: ItemKey, thresholds: Thresholds, reference: tuple | None, floor: tuple[float, str]
) -> ItemComparison:
    base_rec, new_rec = paired.base[key], paired.new[key]
    min_effect = thresholds.min_effect_for(key.suite)
    by_time = judge(base_rec["samples_s"], new_rec["samples_s"], min_effect, thresholds.alpha)
    relative, described = None, ""
    if reference is not None:
        basis, described, base_ref, new_ref = reference
        relative = judge(
            [s / base_ref for s in base_rec["samples_s"]],
            [s / new_ref for s in new_rec["samples_s"]],
            min_effect,
            thresholds.alpha,
            basis=basis,
            noise_floor=floor[0],
            noise_source=floor[1],
        )
    decided = relative or by_time
    if key.kind == "compile":
        rule = _compile_rule(paired, key, min_effect)
    else:
        rule = _rule(key, base_rec, new_rec, reference, min_effect, thresholds.alpha, floor)
    rule_name = "rank test"
    if rule is not None:
        basis = reference[0] if reference is not None else TIME  # the rule judged values relative to it
        decided = Judgement(basis, rule.base_value, rule.new_value, rule.change, rule.p_value, Verdict(rule.verdict), rule.reason)
        rule_name = rule.rule
        if basis != TIME:
            relative = decided
    elif max(verdicts.drift_of(base_rec), verdicts.drift_of(new_rec)) > abs(decided.change) and decided.verdict in (Verdict.SLOWER, Verdict.FASTER):
        width = max(verdicts.drift_of(base_rec), verdicts.drift_of(new_rec))
        decided = Judgement(decided.basis, decided.base_median, decided.new_median, decided.change, decided.p_value, Verdict.NOISY,
                            f"{decided.reason}, but inside the ±{width:.1%} drift measured in the item")
    vendor = _is_vendor(base_rec)
    notes = [f"{side} run: {verdicts.status_of(r)}" for side, r in (("base", base_rec), ("new", new_rec)) if verdicts.status_of(r) != "clean"]
    detail = "; ".join((["the vendor reference: shown, not gated"] if vendor else []) + notes)
    return ItemComparison(
        key=key,
        problem=problem_of(base_rec),
        verdict=decided.verdict,
        gates=not vendor,
        decided_by=decided.basis,
        time=by_time,
        relative=relative,
        reference=described,
        min_effect=min_effect,
        detail=detail,
        rule=rule_name,
    )


def _vendor_rounds(base_rec: dict[str, Any], new_rec: dict[str, Any], reference: tuple | None) -> bool:
    return bool(
        reference is not None and reference[0] == VENDOR_RATIO
        and verdicts.round_values(base_rec, True) and verdicts.round_values(new_rec, True)
    )


def _rule(
    key: ItemKey, base_rec: dict[str, Any], new_rec: dict[str, Any], reference: tuple | None, min_effect: float, alpha: float,
    floor: tuple[float, str],
) -> verdicts.RuleJudgement | None:
    """The rule that decides where the rank test on correlated samples cannot: min-of-n for
    compile items, between-round variation for device items with rounds; None: rank test."""
    base_ref, new_ref = (reference[2], reference[3]) if reference is not None else (1.0, 1.0)
    drift = max(verdicts.drift_of(base_rec), verdicts.drift_of(new_rec))
    width, words = floor
    if drift > width:
        width, words = drift, f"the ±{drift:.1%} drift measured inside the item"
    if _vendor_rounds(base_rec, new_rec, reference):
        return verdicts.between_rounds(verdicts.round_values(base_rec, True), verdicts.round_values(new_rec, True),
                                       min_effect, alpha, width, words)
    base_rounds, new_rounds = verdicts.round_values(base_rec, False), verdicts.round_values(new_rec, False)
    if base_rounds and new_rounds:
        return verdicts.between_rounds([v / base_ref for v in base_rounds], [v / new_ref for v in new_rounds],
                                       min_effect, alpha, width, words)
    return None


def _compile_values(paired: _Paired, key: ItemKey) -> tuple[list[float], list[float]]:
    """CPU seconds of each build where both runs recorded them, else wall seconds."""
    base, new = paired.base[key], paired.new[key]
    if base.get("cpu_samples_s") and new.get("cpu_samples_s"):
        return list(base["cpu_samples_s"]), list(new["cpu_samples_s"])
    return list(base["samples_s"]), list(new["samples_s"])


def _compile_rule(paired: _Paired, key: ItemKey, min_effect: float) -> verdicts.RuleJudgement:
    """min-of-n on the item's builds relative to the run (geomean of the other compile items'
    minima), with the group's item-to-item spread of those relative changes as resolution."""
    group = (key.suite, key.backend, key.kind)
    keys = paired.keys(group)
    mins = {k: tuple(min(v) for v in _compile_values(paired, k)) for k in keys}

    def reference(exclude: ItemKey) -> tuple[float, float]:
        others = [mins[k] for k in keys if k != exclude]
        if len(others) < MIN_RUN_REFERENCE_ITEMS:
            return 1.0, 1.0
        return _geomean([b for b, _ in others]), _geomean([n for _, n in others])

    logs = []
    for k in keys:
        rb, rn = reference(k)
        logs.append(math.log((mins[k][1] / rn) / (mins[k][0] / rb)))
    floor = 0.0
    if len(logs) >= MIN_SPREAD_ITEMS:
        center = statistics.median(logs)
        floor = math.expm1(verdicts.COMPILE_NOISE_K * 1.4826 * statistics.median(abs(x - center) for x in logs))
    base, new = _compile_values(paired, key)
    rb, rn = reference(key)
    return verdicts.min_of_n([v / rb for v in base], [v / rn for v in new], max(min_effect, verdicts.COMPILE_MIN_FACTOR), floor)


def _group_ratios(paired: _Paired, keys: Sequence[ItemKey]) -> list[float]:
    out = []
    for k in keys:
        if paired.base[k].get("kind") == "compile":
            base, new = _compile_values(paired, k)
            b, n = _median(base), _median(new)
        else:
            b, n = paired.medians(k)
        if b > 0 and n > 0:
            out.append(n / b)
    return out


def _probe_ratios(paired: _Paired, keys: Sequence[ItemKey]) -> list[float]:
    """new/base median of the machine probe timed after each build, per compile item."""
    out = []
    for k in keys:
        base, new = paired.base[k].get("machine_probe_cpu_s"), paired.new[k].get("machine_probe_cpu_s")
        if base and new and _median(base) > 0:
            out.append(_median(new) / _median(base))
    return out


def _shifts(paired: _Paired, thresholds: Thresholds) -> list[verdicts.RunShift]:
    out = []
    for group in paired.groups():
        keys = paired.keys(group)
        ratios = _group_ratios(paired, [k for k in keys if not _is_vendor(paired.base[k])])
        if group[2] == "compile":
            vendor = _probe_ratios(paired, keys)
            witness = "machine probe"
        else:
            vendor = [n / b for b, n in (paired.medians(k) for k in keys if _is_vendor(paired.base[k])) if b > 0 and n > 0]
            witness = "vendor item"
        effect = thresholds.min_effect_for(group[0])
        if group[2] == "compile":
            effect = max(effect, verdicts.COMPILE_MIN_FACTOR)
        shift = verdicts.run_shift(*group, ratios, vendor, effect, thresholds.alpha, witness)
        if shift is not None:
            out.append(shift)
    return out


def _drift(paired: _Paired, group: Group, spread: float | None, floor: float) -> Drift | None:
    keys = [k for k in paired.keys(group) if not _is_vendor(paired.base[k])]
    ratios = [n / b for b, n in map(paired.medians, keys) if b > 0 and n > 0]
    vendors = [k for k in paired.keys(group) if _is_vendor(paired.base[k])]
    vendor_ratios = [n / b for b, n in map(paired.medians, vendors) if b > 0 and n > 0]
    if not ratios:
        return None
    vendor_change = _geomean(vendor_ratios) - 1 if vendor_ratios else None
    return Drift(*group, items=len(ratios), change=_geomean(ratios) - 1, vendor_change=vendor_change,
                 spread=spread, noise_floor=floor)


def _model_changes(paired: _Paired) -> list[ModelChange]:
    out = []
    for key in paired.base:
        if key not in paired.new:
            continue
        before, after = _modeled_cycles(paired.base[key]), _modeled_cycles(paired.new[key])
        if before is not None and after is not None and before != after:
            ii = [((r.get("plan") or {}).get("pipeline") or {}).get("loop_ii_cycles_model") for r in (paired.base[key], paired.new[key])]
            out.append(ModelChange(key, before, after, ii[0], ii[1]))
    return out


def _first_line(text: Any, limit: int = 140) -> str:
    lines = [ln.strip() for ln in str(text or "").splitlines() if ln.strip()]
    line = lines[-1] if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _unpaired(key, rec, verdict, gates, detail, thresholds) -> ItemComparison:
    return ItemComparison(
        key=key,
        problem=problem_of(rec),
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
    paired = _Paired(base_timed, new_timed)
    libraries = {t.backend: (t.base.vendor_library, t.new.vendor_library) for t in testbeds}
    notes = [
        f"{b}: vendor library differs ({old} -> {now}); ratios to the vendor item not used"
        for b, (old, now) in libraries.items()
        if old != now
    ]

    references = {
        key: _reference(paired, key, vendor_ok=len(set(libraries.get(key.backend, (None, None)))) == 1)
        for key in base_timed
        if key in new_timed
    }
    floors: dict[Group, tuple[float, str]] = {}
    drifts = []
    for group in paired.groups():
        spread, floor = _noise_floor(paired, group, references)
        floors[group] = (floor, f"{NOISE_K:g} x the ±{spread:.1%} item-to-item spread of {group[2]} items, on a log scale" if spread else "")
        drift = _drift(paired, group, spread, floor)
        if drift is not None:
            drifts.append(drift)

    items: list[ItemComparison] = []
    for key, base_rec in base_timed.items():
        if key in new_timed:
            floor = floors.get((key.suite, key.backend, key.kind), (0.0, ""))
            items.append(_timed_pair(paired, key, thresholds, references[key], floor))
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
        drifts=tuple(drifts),
        model_changes=tuple(_model_changes(paired)),
        notes=tuple(notes),
        shifts=tuple(_shifts(paired, thresholds)),
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


LOOP_ORDER = {"manual": 100, "serial": 101}


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
            group = (problem_of(rec), _tile_label(rec["config"]))
            if group not in refs and _loop_id(rec["config"]) == preferred:
                refs[group] = (rec["case_id"], value)
    return refs


def _stage_points(backend: str, points: list[tuple[dict, float]]) -> list[StagePoint]:
    refs = _reference_case(points)
    out = []
    for rec, value in points:
        config = rec["config"]
        group = (problem_of(rec), _tile_label(config))
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
            problem_of(r): _median(r["samples_s"]) for r in records if _is_vendor(r) and r["kind"] == "device"
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
