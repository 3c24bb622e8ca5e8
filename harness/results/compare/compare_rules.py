"""The rules that judge an item timed in both runs: one predicate each, chosen in one place.

Contract: a rule has a ``name``, ``applies(facts) -> bool`` and ``decide(facts) -> Decision``
(verdict and reason in one object).  ``RULES`` registers them in the order they are asked;
``choose(facts)`` takes the first whose predicate holds (``rank-test`` always does).

The rules:
- ``nothing-measured`` (a side whose samples' median is 0 s: a timer that saw nothing, or an
  edited file): NOISY, never a move of -100 % or +inf.
- ``compile-builds`` (compile items): the builds' min-of-n (or median-of-n) factor relative to
  the run's other compile items (harness/results/compile_gate/compile_group.py; verdicts.min_of_n).  Where
  nothing cancels a move of the machine (fewer than ``MIN_RUN_REFERENCE_ITEMS`` other items),
  SLOWER/FASTER stands only where a witness moved the same way: the instruction count (by
  ``COUNT_MIN_EFFECT``, both runs counted alike) or the builds' own CPU seconds (by the factor);
  otherwise the pair is NOISY, the probe's and the builds' own moves in the reason.  Where the
  two runs also took the item's rounds differently (round-robin over another number of items,
  or back to back in one run: compile_method.py) only the instruction count can witness, since
  the width moves the CPU seconds too; a pair taken back to back in one run and round-robin in
  the other needs that witness even with a run reference, and is never SAME (measured: back to
  back reads 7-24 % faster).
- ``two-levels`` (device items with per-round medians on both sides whose medians moved by the
  minimum effect, where one side's rounds fall in two levels and the other side's median lies
  between their ends: harness/results/compare/two_levels.py): NOISY, the levels in the reason - the pair
  differs by which level more rounds landed on.
- ``vendor-rounds`` (device items judged against their problem's vendor item, with per-round
  vendor ratios on both sides): the between-round test on those ratios, standing only where the
  kernel's own per-round time moved the same way (verdicts.kernel_moved_too).
- ``between-rounds`` (device items with per-round medians on both sides): the between-round
  median test on them, relative to the in-run reference where there is one.
- Both round rules end with the clock witness (harness/results/compare/clock_witness.py): a SLOWER or
  FASTER that the SM clock NVML read after the item's rounds explains (the clock stepped against
  the move, relative to the run's other items where the change is, and the corrected change is
  under the minimum effect) is NOISY, both clocks in the reason.
- ``rank-test`` (every other pair): the Mann-Whitney U rule (judgement.judge) on the samples,
  relative to the in-run reference where there is one; a move inside the drift measured in
  either item is NOISY.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from . import clock_witness, two_levels, verdicts

from ..compile_gate import compile_method
from .comparison import ItemKey
from ..compile_gate.compile_group import MIN_RUN_REFERENCE_ITEMS, compile_group
from ..compile_gate.count_verdicts import COUNT_MIN_EFFECT
from .judgement import RUN_RATIO, TIME, VENDOR_RATIO, Judgement, Thresholds, Verdict, judge
from ..files.record_fields import Record


@dataclass
class PairFacts:
    """What a rule sees of one item timed in both runs (the rank tests computed once, on first use)."""

    paired: Any  # pairing.Paired
    key: ItemKey
    thresholds: Thresholds
    reference: tuple[str, str, float, float] | None  # (basis, words, base ref, new ref): pairing.in_run_reference
    floor: tuple[float, str]  # the group's noise floor and its words

    @property
    def base(self) -> Record:
        return self.paired.base[self.key]

    @property
    def new(self) -> Record:
        return self.paired.new[self.key]

    @property
    def min_effect(self) -> float:
        return self.thresholds.min_effect_for(self.key.suite)

    @property
    def group(self) -> tuple[str, str, str]:
        return (self.key.suite, self.key.backend, self.key.kind)

    @cached_property
    def own_rounds(self) -> tuple[list[float], list[float]] | None:
        """Each side's per-round medians (the kernel's own time), or None where a side has too few."""
        base, new = verdicts.round_values(self.base, False), verdicts.round_values(self.new, False)
        return (base, new) if base is not None and new is not None else None

    @cached_property
    def vendor_rounds(self) -> tuple[list[float], list[float]] | None:
        """Each side's per-round ratios to its vendor item, or None where a side has too few."""
        base, new = verdicts.round_values(self.base, True), verdicts.round_values(self.new, True)
        return (base, new) if base is not None and new is not None else None

    @cached_property
    def level_occupancy(self) -> two_levels.Occupancy | None:
        """Why the pair's move is its rounds' occupancy of two levels (harness/results/compare/two_levels.py), or None."""
        return two_levels.occupancy(*self.own_rounds, self.min_effect) if self.own_rounds is not None else None

    @cached_property
    def clock_ratio(self) -> float | None:
        """The item's SM clock ratio (new over base, per-round medians), or None without telemetry."""
        return clock_witness.clock_ratio(self.base.raw, self.new.raw)

    def group_clock_ratio(self) -> float | None:
        """The median clock ratio of the item's group (computed once per comparison)."""
        memo = self.paired.memo.setdefault("group_clock", {})
        if self.group not in memo:
            memo[self.group] = clock_witness.group_clock(
                [clock_witness.clock_ratio(self.paired.base[k].raw, self.paired.new[k].raw)
                 for k in self.paired.keys(self.group)])
        return memo[self.group]

    @cached_property
    def time(self) -> Judgement:
        """The rank test on the raw samples (shown beside every verdict)."""
        return judge(self.base.samples_s, self.new.samples_s, self.min_effect, self.thresholds.alpha)

    @cached_property
    def relative(self) -> Judgement | None:
        """The rank test on the samples over the in-run reference, where there is one."""
        if self.reference is None:
            return None
        basis, _, base_ref, new_ref = self.reference
        return judge([s / base_ref for s in self.base.samples_s], [s / new_ref for s in self.new.samples_s],
                     self.min_effect, self.thresholds.alpha, basis=basis, noise_floor=self.floor[0], noise_source=self.floor[1])


@dataclass(frozen=True)
class Decision:
    judgement: Judgement  # its verdict is the item's, its reason the item's why
    rule: str  # the rule in words, as reports show it
    reference: str = ""  # what the judged values are relative to ("" : as the pair's in-run reference)


class CompareRule(Protocol):
    name: str

    def applies(self, facts: PairFacts) -> bool: ...

    def decide(self, facts: PairFacts) -> Decision: ...


def _from_rule(basis: str, rule: verdicts.RuleJudgement) -> Judgement:
    return Judgement(basis, rule.base_value, rule.new_value, rule.change, rule.p_value, Verdict(rule.verdict), rule.reason)


def _noisy(judged: Judgement, reason: str) -> Judgement:
    return Judgement(judged.basis, judged.base_median, judged.new_median, judged.change, judged.p_value, Verdict.NOISY, reason)


def _pct(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:+.1%}"


class NothingMeasured:
    name = "nothing-measured"

    def applies(self, facts: PairFacts) -> bool:
        return facts.time.base_median <= 0 or facts.time.new_median <= 0

    def decide(self, facts: PairFacts) -> Decision:
        side = " and ".join(s for s, m in (("base", facts.time.base_median), ("new", facts.time.new_median)) if m <= 0)
        return Decision(_noisy(facts.time, f"the {side} run's samples are 0 s: nothing was measured to judge"), "samples of 0 s")


class CompileBuilds:
    name = "compile-builds"

    def applies(self, facts: PairFacts) -> bool:
        return facts.key.kind == "compile"

    def decide(self, facts: PairFacts) -> Decision:
        group = compile_group(facts.paired, facts.group)
        base, new, centre = group.values[facts.key]
        reference = group.reference(facts.key)
        rb, rn = (reference[0], reference[1]) if reference is not None else (1.0, 1.0)
        factor = max(facts.min_effect, verdicts.COMPILE_MIN_FACTOR)
        rule = verdicts.min_of_n([v / rb for v in base], [v / rn for v in new], factor, group.floor or 0.0, centre)
        judged = _from_rule(RUN_RATIO if reference is not None else TIME, rule)
        words = (f"geometric mean of the {reference[2]} other compile items' builds in the same run" if reference is not None
                 else "none: each build over the machine probe timed after it")
        if judged.verdict in (Verdict.SLOWER, Verdict.FASTER):
            judged = self._witnessed(facts, judged, reference is not None)
        elif compile_method.back_to_back_differs(facts.base.raw, facts.new.raw):
            how = compile_method.width_difference(facts.base.raw, facts.new.raw)
            judged = _noisy(judged, f"{judged.reason}; but {how}: builds taken back to back reuse what the previous build "
                                    "of the same kernel left warm, so this pair cannot resolve the factor (not judged; "
                                    "compare runs of the same selection)")
        return Decision(judged, rule.rule, words)

    def _witnessed(self, facts: PairFacts, judged: Judgement, referenced: bool) -> Judgement:
        """SLOWER/FASTER where nothing cancels the machine's move, only with a witness (module contract)."""
        base_rec, new_rec = facts.base.raw, facts.new.raw
        back_to_back = compile_method.back_to_back_differs(base_rec, new_rec)
        overlap = compile_method.overlap_difference(base_rec, new_rec)
        widths = compile_method.width_difference(base_rec, new_rec) or overlap
        if referenced and not back_to_back and not overlap:
            return judged
        moves = compile_group(facts.paired, facts.group).moves(facts.key)
        up = judged.change > 0
        if moves.instructions is not None and (moves.instructions > 0) == up and abs(moves.instructions) >= COUNT_MIN_EFFECT:
            return judged
        counted = "" if moves.instructions is None else f"its instruction count moved {moves.instructions:+.2%}"
        if back_to_back or widths:  # the width moves the CPU seconds too: only a count can witness
            witness = counted or "no instruction count tells the compiler's work from the way it was measured"
        elif moves.cpu is not None and (moves.cpu > 0) == up and abs(moves.cpu) >= verdicts.COMPILE_MIN_FACTOR:
            return judged
        else:
            witness = "; ".join(filter(None, [counted, f"the builds' own CPU seconds moved {_pct(moves.cpu)}"]))
        if back_to_back:
            why = (f"{widths}: builds taken back to back reuse what the previous build of the same kernel left warm "
                   "and read faster, so the two runs measured this item differently")
        elif not referenced:
            others = len(facts.paired.keys(facts.group)) - 1
            why = (f"only {others} other compile item(s) in both runs (a run reference needs {MIN_RUN_REFERENCE_ITEMS}), "
                   f"so nothing cancels the machine probe's own move ({_pct(moves.probe)})"
                   + (f"; {widths}" if widths else ""))
        else:
            why = widths or "measured differently"
        return _noisy(judged, f"{judged.reason}; but {why}, and {witness}: not judged (compare runs of the same "
                              f"selection, {MIN_RUN_REFERENCE_ITEMS + 1}+ compile items a backend, or count instructions)")


def _rounds_width(facts: PairFacts) -> tuple[float, str]:
    """The group's noise floor, widened to the drift measured inside either item."""
    drift = max(verdicts.drift_of(facts.base), verdicts.drift_of(facts.new))
    width, words = facts.floor
    if drift > width:
        width, words = drift, f"the ±{drift:.1%} drift measured inside the item"
    return width, words


def _basis(facts: PairFacts) -> str:
    return facts.reference[0] if facts.reference is not None else TIME


def _clock_checked(facts: PairFacts, judged: Judgement) -> Judgement:
    """A SLOWER/FASTER that the SM clock of the item's rounds explains is NOISY (clock_witness.py)."""
    if judged.verdict not in (Verdict.SLOWER, Verdict.FASTER):
        return judged
    relative = facts.reference is not None and judged.basis != TIME
    reference_clock = facts.group_clock_ratio() if relative else 1.0
    step = clock_witness.explained(judged.change, facts.clock_ratio, reference_clock, relative, facts.min_effect,
                                   facts.base.raw, facts.new.raw)
    return judged if step is None else _noisy(judged, f"{judged.reason}; but {step.words()}")


class TwoLevels:
    name = "two-levels"

    def applies(self, facts: PairFacts) -> bool:
        return facts.level_occupancy is not None

    def decide(self, facts: PairFacts) -> Decision:
        found = facts.level_occupancy
        judged = Judgement(TIME, found.base_median, found.new_median, found.change, None, Verdict.NOISY, found.reason)
        return Decision(judged, "rounds in two levels (the kernel's own per-round time)", reference="its own time")


class VendorRounds:
    name = "vendor-rounds"

    def applies(self, facts: PairFacts) -> bool:
        return facts.reference is not None and facts.reference[0] == VENDOR_RATIO and facts.vendor_rounds is not None

    def decide(self, facts: PairFacts) -> Decision:
        width, words = _rounds_width(facts)
        relative = verdicts.between_rounds(*facts.vendor_rounds, facts.min_effect, facts.thresholds.alpha, width, words)
        absolute = (verdicts.between_rounds(*facts.own_rounds, facts.min_effect, facts.thresholds.alpha, width, words)
                    if facts.own_rounds is not None else None)
        rule = verdicts.kernel_moved_too(relative, absolute)
        return Decision(_clock_checked(facts, _from_rule(_basis(facts), rule)), rule.rule)


class BetweenRounds:
    name = "between-rounds"

    def applies(self, facts: PairFacts) -> bool:
        return facts.own_rounds is not None

    def decide(self, facts: PairFacts) -> Decision:
        width, words = _rounds_width(facts)
        base_ref, new_ref = (facts.reference[2], facts.reference[3]) if facts.reference is not None else (1.0, 1.0)
        base, new = facts.own_rounds
        rule = verdicts.between_rounds([v / base_ref for v in base], [v / new_ref for v in new],
                                       facts.min_effect, facts.thresholds.alpha, width, words)
        return Decision(_clock_checked(facts, _from_rule(_basis(facts), rule)), rule.rule)


class RankTest:
    name = "rank-test"

    def applies(self, facts: PairFacts) -> bool:
        return True

    def decide(self, facts: PairFacts) -> Decision:
        judged = facts.relative or facts.time
        drift = max(verdicts.drift_of(facts.base), verdicts.drift_of(facts.new))
        if judged.verdict in (Verdict.SLOWER, Verdict.FASTER) and drift > abs(judged.change):
            judged = _noisy(judged, f"{judged.reason}, but inside the ±{drift:.1%} drift measured in the item")
        return Decision(judged, "rank test")


RULES: dict[str, CompareRule] = {
    rule.name: rule for rule in (NothingMeasured(), CompileBuilds(), TwoLevels(), VendorRounds(), BetweenRounds(), RankTest())
}


def choose(facts: PairFacts) -> CompareRule:
    """The first registered rule whose predicate holds for this pair."""
    return next(rule for rule in RULES.values() if rule.applies(facts))
