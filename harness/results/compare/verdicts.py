"""Run-vs-run judging rules that look past one item's correlated samples (pure).

Contract: ``between_rounds(base, new, min_effect, alpha, floor)``: the median of the per-round
logs with a robust standard error (1.4826 x MAD), so one slow round moves neither; SLOWER/FASTER
at >= the minimum effect and the resolution, SAME under the effect where resolved, else NOISY.
``min_of_n(base, new, factor, floor)``: compile items, asv's rule on the minimum (or median) of
the builds; fewer than ``MIN_BUILDS_TO_DECIDE`` builds never decide.  ``run_shift(...)``: a
whole-run move gates unless the in-run witness moved too.  ``kernel_moved_too``: a vendor-ratio
verdict needs the kernel's own time to move alike.  ``drift_of(rec)`` widens a pair's resolution.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence
from ..files.record_fields import Record

MIN_ROUNDS = 2  # per side, for a between-round judgement
MIN_SHIFT_ITEMS = 3  # kernels a group needs before a whole-run shift is judged
SHIFT_AGREEMENT = 0.75  # share of those kernels that must move in the shift's direction
COMPILE_MIN_FACTOR = 0.10  # asv's default factor: compile changes under 10 % are not flagged
COMPILE_NOISE_K = 4.0  # compile resolution: this many robust SDs of the item-to-item spread (as compare.NOISE_K)
RULE_ROUNDS = "between-round median test"
MEDIAN_EFFICIENCY = math.sqrt(math.pi / 2)  # a normal sample's median: SE = 1.2533 x sigma / sqrt(n)
RULE_MIN_OF_N = "min-of-n factor"
RULE_MEDIAN_OF_N = "median-of-n factor"
MIN_BUILDS_TO_DECIDE = 2  # builds per side below which a moved compile time is NOISY, never a verdict


@dataclass(frozen=True)
class RuleJudgement:
    verdict: str  # SAME | SLOWER | FASTER | NOISY
    change: float  # new / base - 1 of the judged statistic
    base_value: float
    new_value: float
    p_value: float | None
    resolution: float | None  # smallest change this pair can call (None: not estimated)
    rule: str
    reason: str


@lru_cache(maxsize=None)
def _t_critical(alpha: float, df: int) -> float:
    """Student's t quantile (scipy.stats.t.ppf's value, from the special function it wraps:
    the distribution object's argument handling cost a millisecond a call)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, 1 - alpha / 2))


def _t_p(t_value: float, df: int) -> float:
    """Two-sided p of Student's t (2 x scipy.stats.t.sf, through its special function)."""
    from scipy.special import stdtr

    return float(2 * stdtr(df, -abs(t_value)))


def round_values(rec: Record, relative_to_vendor: bool) -> list[float] | None:
    """The per-round values a record carries (vendor ratios or medians), when it has enough."""
    m = rec.measurement or {}
    values = m.get("vs_vendor_rounds") if relative_to_vendor else m.get("round_medians_s")
    if not values or len(values) < MIN_ROUNDS or any(v is None or v <= 0 for v in values):
        return None
    return [float(v) for v in values]


def drift_of(rec: Record) -> float:
    m = rec.measurement or {}
    drift = m.get("drift")
    return abs(float(drift.get("relative", 0.0))) if isinstance(drift, dict) else 0.0


def status_of(rec: Record) -> str:
    return str((rec.summary or {}).get("status") or "clean")


def between_rounds(
    base: Sequence[float], new: Sequence[float], min_effect: float, alpha: float, floor: float = 0.0, floor_words: str = ""
) -> RuleJudgement:
    lb, ln = [math.log(v) for v in base], [math.log(v) for v in new]
    mb, mn = statistics.median(lb), statistics.median(ln)
    change = math.expm1(mn - mb)
    df = len(lb) + len(ln) - 2
    residuals = [abs(x - mb) for x in lb] + [abs(x - mn) for x in ln]
    robust_sd = 1.4826 * statistics.median(residuals)
    se = MEDIAN_EFFICIENCY * robust_sd * math.sqrt(1 / len(lb) + 1 / len(ln))
    resolution = math.expm1(_t_critical(alpha, df) * se)
    p_value = _t_p((mn - mb) / se, df) if se > 0 else (0.0 if mn != mb else 1.0)
    why_res = f"between-round spread of {len(lb)}+{len(ln)} rounds"
    if floor > resolution:
        resolution, why_res = floor, floor_words or "noise floor"
    moved = f"median of rounds {change:+.1%}"
    if abs(change) >= min_effect and abs(change) >= resolution:
        verdict = "SLOWER" if change > 0 else "FASTER"
        reason = f"{moved}, beyond the ±{resolution:.1%} this pair resolves ({why_res}), p={p_value:.3g}"
    elif abs(change) >= min_effect:
        verdict = "NOISY"
        reason = f"{moved}, but inside the ±{resolution:.1%} this pair resolves ({why_res})"
    elif resolution > min_effect:
        verdict = "NOISY"
        reason = f"{moved}; this pair resolves only ±{resolution:.1%} ({why_res}), more than the {min_effect:.0%} minimum effect: cannot say SAME"
    else:
        verdict = "SAME"
        reason = f"{moved}; under the {min_effect:.0%} minimum effect (this pair resolves ±{resolution:.1%})"
    return RuleJudgement(verdict, change, math.exp(mb), math.exp(mn), p_value, resolution, RULE_ROUNDS, reason)


def kernel_moved_too(relative: RuleJudgement, absolute: RuleJudgement | None) -> RuleJudgement:
    if absolute is None or absolute.verdict == relative.verdict:
        return relative
    if relative.verdict == "NOISY" and absolute.verdict == "SAME" and relative.resolution is not None \
            and abs(relative.change) < relative.resolution:
        # The ratio cannot resolve the minimum effect, but the kernel's own per-round time
        # can and did not move: nothing moved to judge (the ratio's spread is the vendor
        # item's, re-measured in each round).  A ratio that moved beyond its resolution is
        # left NOISY.
        reason = (
            f"the kernel's own time {absolute.reason}; its ratio to the vendor item moved {relative.change:+.1%} "
            f"inside the ±{relative.resolution:.1%} that ratio resolves"
        )
        return RuleJudgement("SAME", absolute.change, absolute.base_value, absolute.new_value, absolute.p_value,
                             absolute.resolution, absolute.rule, reason)
    if relative.verdict not in ("SLOWER", "FASTER"):
        return relative
    verdict = "SAME" if absolute.verdict == "SAME" else "NOISY"
    reason = (
        f"ratio to vendor {relative.change:+.1%}, but the kernel's own time moved {absolute.change:+.1%} "
        f"({absolute.verdict}): the vendor item moved, not the kernel"
    )
    return RuleJudgement(verdict, relative.change, relative.base_value, relative.new_value, relative.p_value,
                         relative.resolution, relative.rule, reason)


def min_of_n(base: Sequence[float], new: Sequence[float], factor: float, floor: float = 0.0,
             centre: str = "min") -> RuleJudgement:
    if centre == "median":
        bmin, nmin = statistics.median(base), statistics.median(new)
        rule = f"{RULE_MEDIAN_OF_N} {1 + factor:g} on the median of {len(base)}/{len(new)} round-robin builds, each over its own machine probe"
    else:
        bmin, nmin = min(base), min(new)
        rule = f"{RULE_MIN_OF_N} {1 + factor:g} on min of {len(base)}/{len(new)} builds"
    change = nmin / bmin - 1 if bmin > 0 else 0.0
    spread = max(max(base) / min(base) - 1 if min(base) > 0 else 0.0, max(new) / min(new) - 1 if min(new) > 0 else 0.0)
    moved = f"{'median' if centre == 'median' else 'min'} {change:+.1%}"
    if abs(change) >= factor and abs(change) < floor:
        return RuleJudgement("NOISY", change, bmin, nmin, None, floor, rule,
                             f"{moved}, but this pair resolves only ±{floor:.0%} ({COMPILE_NOISE_K:g} x the item-to-item spread of its compile items): it cannot resolve this change")
    fewest = min(len(base), len(new))
    if abs(change) >= factor and fewest < MIN_BUILDS_TO_DECIDE:
        return RuleJudgement("NOISY", change, bmin, nmin, None, floor, rule,
                             f"{moved}, but on {len(base)}/{len(new)} build(s): one build cannot tell a slower compile from a busy "
                             f"moment (take more rounds: --tlbench-compile-rounds, --tlbench-compile-max-seconds, or count instructions)")
    if change >= factor:
        verdict, reason = "SLOWER", f"{moved} >= the {factor:.0%} factor, beyond the ±{floor:.0%} this pair resolves"
    elif change <= -factor:
        verdict, reason = "FASTER", f"{moved}, beyond the {factor:.0%} factor and the ±{floor:.0%} this pair resolves"
    elif floor >= factor:
        verdict = "NOISY"
        reason = f"{moved}; this pair resolves only ±{floor:.0%}, more than the {factor:.0%} factor: cannot say SAME"
    else:
        verdict, reason = "SAME", f"{moved}; under the {factor:.0%} factor (builds of one item spread up to {spread:.0%})"
    return RuleJudgement(verdict, change, bmin, nmin, None, floor, rule, reason)


@dataclass(frozen=True)
class RunShift:
    """A whole group (suite, backend, kind) of a run moved together."""

    suite: str
    backend: str
    kind: str
    items: int
    change: float  # geometric mean of the kernels' median ratios, - 1
    agreeing: int  # kernels that moved in the shift's direction
    p_value: float
    vendor_change: float | None
    verdict: str  # "MACHINE" (shown) | "SHIFT" (a toolchain/harness move; gates when slower) | "NONE"
    gates: bool
    words: str
    # compile groups: the builds' wait for a CPU moved by this much (wall over CPU seconds,
    # harness/results/compile_gate/compile_shift.py::load_move); None: not a compile group, or no CPU seconds
    load_change: float | None = None


def run_shift(
    suite: str, backend: str, kind: str, ratios: Sequence[float], vendor_ratios: Sequence[float], min_effect: float, alpha: float,
    witness: str = "vendor item",
) -> RunShift | None:
    """Judge the move shared by a group's kernels (``ratios`` = new/base median per kernel).
    ``vendor_ratios``: the same for the run's machine witness (the vendor items; for compile
    items the machine probe timed after each build, harness/measure/runner.machine_probe)."""
    if len(ratios) < MIN_SHIFT_ITEMS:
        return None
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    change = math.expm1(mean)
    sd = statistics.stdev(logs)
    se = sd / math.sqrt(len(logs))
    p_value = _t_p(mean / se, len(logs) - 1) if se > 0 else (0.0 if mean != 0 else 1.0)
    agreeing = sum(1 for x in logs if (x > 0) == (mean > 0) and x != 0)
    vendor_change = math.expm1(statistics.fmean(math.log(r) for r in vendor_ratios)) if vendor_ratios else None
    shared = abs(change) >= min_effect and p_value < alpha and agreeing >= SHIFT_AGREEMENT * len(logs)
    group = f"{suite}/{backend}/{kind}"
    if not shared:
        return RunShift(suite, backend, kind, len(logs), change, agreeing, p_value, vendor_change, "NONE", False,
                        f"{group}: no whole-run shift (kernels' geomean {change:+.1%}, {agreeing}/{len(logs)} in that direction)")
    direction = "slower" if change > 0 else "faster"
    moved = f"{group}: the whole run is {change:+.1%} ({agreeing}/{len(logs)} kernels {direction}, p={p_value:.2g})"
    if vendor_change is not None and abs(math.log1p(change) - math.log1p(vendor_change)) < math.log1p(min_effect):
        words = f"{moved}; the in-run {witness} moved {vendor_change:+.1%} too: the machine, not the code (shown, not gated)"
        return RunShift(suite, backend, kind, len(logs), change, agreeing, p_value, vendor_change, "MACHINE", False, words)
    if vendor_change is not None:
        why = f"the in-run {witness} moved only {vendor_change:+.1%}: not the machine"
    else:
        why = f"no in-run {witness} for {kind} items to put it on the machine"
    words = f"WHOLE-RUN SHIFT {moved}; {why}: a toolchain or harness change"
    return RunShift(suite, backend, kind, len(logs), change, agreeing, p_value, vendor_change, "SHIFT", change > 0, words)
