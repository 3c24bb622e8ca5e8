"""Run-vs-run verdicts on compile items' instruction counts (harness/measure/instructions.py).

Contract: ``compare_counts(paired, thresholds)`` returns ``CountVerdicts``: an
``ItemComparison`` (``metric == INSTRUCTIONS``) per item counted alike in both runs, whole-run
count shifts per backend, and notes on counts that cannot be compared.  ``judge_counts``: change
of the medians, resolved by ``COUNT_FLOOR``, the item's spread and ``COUNT_NOISE_K`` robust SDs
of the backend's spread.  ``with_count_witness``: a compile-time shift is the machine's unless
its group's counts moved alike.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from ..files import record_fields
from ..files.record_fields import Record

from ..compare import shift_cause
from .compile_shift import uncounted
from ..compare.comparison import ItemComparison, ItemKey
from ..compare.judgement import Judgement, Thresholds, Verdict
from ..compare.pairing import Paired, problem_of
from ..compare.verdicts import MIN_SHIFT_ITEMS, SHIFT_AGREEMENT, RunShift

INSTRUCTIONS = "instructions"  # ItemComparison.metric and Judgement.basis of a count verdict
COUNT_MIN_EFFECT = 0.01  # a change of the work under 1 % is SAME
# The A/A floor: 3 x the largest change of one item's callgrind count over 5 A/A nightly CPU runs on
# the 2-core box (20 ordered pairs, 2 made beside two busy loops): 0.167 %, between runs of two
# commits of the harness (runs of one commit: 0.001 % at most), rounded up.
COUNT_FLOOR = 0.005
COUNT_NOISE_K = 4.0
MIN_SPREAD_ITEMS = 6
RULE = "instruction count"
# A record without a ``method``: counted before each item had a fork of its own, so its count also
# held what the items its child counted before it left behind (caches, solver state).
OLDER_METHOD = "the older method: each item after the items its child counted before it"


@dataclass(frozen=True)
class CountVerdicts:
    items: tuple[ItemComparison, ...] = ()
    shifts: tuple[RunShift, ...] = ()
    notes: tuple[str, ...] = ()


def counts_of(rec: Record) -> list[int] | None:
    """The lowering's counts of a record (None: none recorded, or absent).  A file's counts were
    checked when it was read (record_fields.py: malformed ones are refused, exit 2); an integral
    float (``1030000.0``) is the whole number it holds."""
    counts = (rec.instructions or {}).get("lowering")
    if not counts or not all(record_fields.whole_count(c) for c in counts):
        return None
    return [int(c) for c in counts]


def counter_of(rec: Record) -> str:
    value = rec.instructions or {}
    return f"{value.get('counter')} ({value.get('event')})"


def incomparable(base: Record, new: Record) -> str | None:
    """Why two records' counts must not be compared (None: they may)."""
    b, n = base.instructions or {}, new.instructions or {}
    if (b.get("counter"), b.get("event")) != (n.get("counter"), n.get("event")):
        return f"counted by different counters ({counter_of(base)} vs {counter_of(new)})"
    if b.get("method") != n.get("method"):
        return f"counted by different methods ({b.get('method') or OLDER_METHOD} vs {n.get('method') or OLDER_METHOD})"
    if b.get("counter") == "hardware" and b.get("cpu") != n.get("cpu"):
        return f"hardware counts of different CPUs ({b.get('cpu')} vs {n.get('cpu')})"
    return None


def _median(values: Sequence[int]) -> float:
    return float(statistics.median(values))


def _own_spread(counts: Sequence[int]) -> float:
    return max(counts) / min(counts) - 1 if len(counts) > 1 else 0.0


def judge_counts(base: Sequence[int], new: Sequence[int], floor: float = 0.0, floor_words: str = "",
                 min_effect: float = COUNT_MIN_EFFECT) -> tuple[Judgement, str]:
    """(the judgement, the rule in words) of one item's counts."""
    b, n = _median(base), _median(new)
    change = n / b - 1
    resolution, why = COUNT_FLOOR, f"the ±{COUNT_FLOOR:.1%} A/A floor of instruction counts"
    own = max(_own_spread(base), _own_spread(new))
    if own > resolution:
        resolution, why = own, f"the ±{own:.2%} spread of the item's own counts"
    if floor > resolution:
        resolution, why = floor, floor_words
    moved = f"instructions {change:+.2%}"
    if abs(change) >= min_effect and abs(change) >= resolution:
        verdict = Verdict.SLOWER if change > 0 else Verdict.FASTER
        reason = f"{moved}, beyond the {min_effect:.0%} minimum effect and the ±{resolution:.2%} this pair resolves ({why})"
    elif abs(change) >= min_effect:
        verdict = Verdict.NOISY
        reason = f"{moved}, but inside the ±{resolution:.2%} this pair resolves ({why})"
    elif resolution > min_effect:
        verdict = Verdict.NOISY
        reason = f"{moved}; this pair resolves only ±{resolution:.2%} ({why}): cannot say SAME"
    else:
        verdict = Verdict.SAME
        reason = f"{moved}; under the {min_effect:.0%} minimum effect (this pair resolves ±{resolution:.2%}: {why})"
    rule = f"{RULE}, median of {len(base)}/{len(new)} count(s), resolution ±{resolution:.2%}"
    return Judgement(INSTRUCTIONS, b, n, change, None, verdict, reason), rule


def _pairs(paired: Paired) -> tuple[dict[ItemKey, tuple[list[int], list[int]]], list[str]]:
    found, notes = {}, []
    for key, base in paired.base.items():
        new = paired.new.get(key)
        if new is None or key.kind != "compile":
            continue
        b, n = counts_of(base), counts_of(new)
        if b is None or n is None:
            continue
        why = incomparable(base, new)
        if why:
            notes.append(f"{key.kind}-{key.backend}-{key.case_id}: instruction counts not judged: {why}")
            continue
        found[key] = (b, n)
    return found, notes


def _spread_floor(logs: Sequence[float]) -> float:
    if len(logs) < MIN_SPREAD_ITEMS:
        return 0.0
    center = statistics.median(logs)
    return math.expm1(COUNT_NOISE_K * 1.4826 * statistics.median(abs(x - center) for x in logs))


def compare_counts(paired: Paired, thresholds: Thresholds | None = None) -> CountVerdicts:
    del thresholds  # counts have their own minimum effect: a time threshold is no measure of work
    pairs, notes = _pairs(paired)
    by_backend: dict[str, list[ItemKey]] = {}
    for key in pairs:
        by_backend.setdefault(key.backend, []).append(key)
    items, shifts = [], []
    for backend, keys in sorted(by_backend.items()):
        logs = {k: math.log(_median(pairs[k][1]) / _median(pairs[k][0])) for k in keys}
        floor = _spread_floor(list(logs.values()))
        words = f"{COUNT_NOISE_K:g} x the item-to-item spread of the {len(keys)} counted {backend} items"
        for key in keys:
            judgement, rule = judge_counts(*pairs[key], floor, words)
            rec = paired.base[key]
            items.append(ItemComparison(
                key=key, problem=problem_of(rec), verdict=judgement.verdict, gates=True, decided_by=INSTRUCTIONS,
                time=judgement, min_effect=COUNT_MIN_EFFECT, detail=f"counter: {counter_of(rec)}", rule=rule,
                metric=INSTRUCTIONS))
        shift = shift_cause.named(count_shift(backend, list(logs.values()), max(floor, COUNT_FLOOR)),
                                  [(paired.base[k].raw, paired.new[k].raw) for k in keys])
        if shift is not None:
            shifts.append(shift)
    return CountVerdicts(tuple(items), tuple(shifts), tuple(notes))


def count_shift(backend: str, logs: Sequence[float], floor: float) -> RunShift | None:
    """The whole run's counts moved together (see the module docstring); None: too few items."""
    if len(logs) < MIN_SHIFT_ITEMS:
        return None
    mean = statistics.fmean(logs)
    change = math.expm1(mean)
    agreeing = sum(1 for x in logs if x != 0 and (x > 0) == (mean > 0))
    group = f"all suites/{backend}/compile ({INSTRUCTIONS})"
    effect = max(COUNT_MIN_EFFECT, floor)
    if abs(change) < effect or agreeing < SHIFT_AGREEMENT * len(logs):
        return RunShift("*", backend, "compile", len(logs), change, agreeing, 1.0, None, "NONE", False,
                        f"{group}: no whole-run shift of instruction counts (geomean {change:+.2%}, {agreeing}/{len(logs)} "
                        "in that direction)")
    direction = "more" if change > 0 else "fewer"
    words = (f"WHOLE-RUN SHIFT {group}: the counted lowerings executed {change:+.2%} instructions ({agreeing}/{len(logs)} "
             f"items {direction}); instruction counts do not move with the machine: a toolchain or harness change")
    return RunShift("*", backend, "compile", len(logs), change, agreeing, 0.0, None, "SHIFT", change > 0, words)


def with_count_witness(time_shifts: Sequence[RunShift], counted: CountVerdicts) -> tuple[RunShift, ...]:
    """The compile-time shifts, each the machine's (shown, not gated) unless its group's counts
    moved alike by ``COUNT_MIN_EFFECT`` (an A/A pair read +41.8 % on time, every count within
    0.2 %; a group with none: ``compile_shift.uncounted``); then the counts' own shifts."""
    out = []
    for shift in time_shifts:
        same_group = [i for i in counted.items if i.time is not None
                      and (i.key.suite, i.key.backend, i.key.kind) == (shift.suite, shift.backend, shift.kind)]
        if shift.kind != "compile" or shift.verdict != "SHIFT":
            out.append(shift)
            continue
        if not same_group:
            out.append(uncounted(shift))
            continue
        moved = math.expm1(statistics.fmean(math.log1p(i.time.change) for i in same_group))
        if (shift.change > 0 and moved >= COUNT_MIN_EFFECT) or (shift.change < 0 and moved <= -COUNT_MIN_EFFECT):
            out.append(shift)
            continue
        words = (f"{shift.suite}/{shift.backend}/{shift.kind}: the whole run's compile time moved {shift.change:+.1%} "
                 f"({shift.agreeing}/{shift.items} items), but the instructions of its {len(same_group)} counted item(s) "
                 f"moved {moved:+.2%}: the machine's speed, not the compiler's work (shown, not gated)")
        out.append(RunShift(shift.suite, shift.backend, shift.kind, shift.items, shift.change, shift.agreeing, shift.p_value,
                            moved, "MACHINE", False, words))
    return tuple(out) + counted.shifts
