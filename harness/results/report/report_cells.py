"""What every output format of a comparison or a run says, as plain strings.

Contract: pure functions of compare / compare_backends data or a ``Results``: the verdict order
and the cells and rows every format shows.  Times print as times, counts as ``M instr``, models
as ``cycles (model)``.
"""

from __future__ import annotations

from typing import Iterable
from ...core.backend_traits import TraitsCatalog
from ..compare.compare_backends import DEVICE_TIME, AcrossBackends
from ..compare.comparison import Drift, ItemComparison, RunComparison
from ..compile_gate.count_verdicts import INSTRUCTIONS
from .partial_note import partial_lines
from ..compare.plan_verdicts import ORDER as PLAN_ORDER, SAME_PLAN, summary_words
from ..compare.judgement import RUN_RATIO, TIME, VENDOR_RATIO, Judgement
from ..files.run_facts import ItemFacts, run_facts
from .table import format_seconds, rate_cells
from ..files.store import Results
from .text_table import Column, Group, TextRow, split_id
from ..compare import verdict_words


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f} cyc (model)" if unit == "cycles" else format_seconds(value)


def format_change(judgement: Judgement | None) -> str:
    if judgement is None:
        return "-"
    p = "n/a" if judgement.p_value is None else f"{judgement.p_value:.2g}"
    return f"{judgement.change:+.1%} (p={p})"


def _item_label(item: ItemComparison) -> str:
    label = f"{item.key.kind}-{item.key.backend}-{item.key.case_id}"
    return label if item.metric != INSTRUCTIONS else f"{label} [instructions]"


def sorted_items(items: Iterable[ItemComparison]) -> list[ItemComparison]:
    return sorted(items, key=lambda i: (verdict_words.rank(i.verdict), i.key.suite, i.key.backend, i.key.kind, i.key.case_id, i.metric))


def format_count(value: float | None) -> str:
    """An instruction count (never a time): ``812.44 M instr``."""
    return "-" if value is None else f"{value / 1e6:,.2f} M instr"


def _value_cell(item: ItemComparison, value: float) -> str:
    return format_count(value) if item.metric == INSTRUCTIONS else format_seconds(value)


def _change_cell(item: ItemComparison) -> str:
    if item.metric == INSTRUCTIONS and item.time is not None:
        return f"{item.time.change:+.2%} (count)"
    return format_change(item.time)


def _note(item: ItemComparison) -> str:
    decisive = item.decisive
    parts = [decisive.reason] if decisive is not None else []
    if item.detail:
        parts.append(item.detail)
    return "; ".join(parts)


BASIS_LABEL = {TIME: "time", VENDOR_RATIO: "ratio to vendor", RUN_RATIO: "ratio to run", INSTRUCTIONS: "instructions"}


def _decided(item: ItemComparison) -> str:
    basis = BASIS_LABEL.get(item.decided_by or "", "-")
    return basis if basis == "-" or item.rule == "rank test" else f"{basis}, {item.rule}"


def comparison_rows(cmp: RunComparison) -> list[list[str]]:
    """verdict, item, base median, new median, change of time, change of ratio to vendor,
    decided by, note: one list of cells per item, regressions first."""
    return [[_verdict_cell(item), _item_label(item),
             _value_cell(item, item.time.base_median) if item.time else "-",
             _value_cell(item, item.time.new_median) if item.time else "-",
             _change_cell(item), _relative_cell(item), _decided(item), _note(item)]
            for item in sorted_items(cmp.items)]


COMPARISON_HEADER = ["verdict", "item", "base median", "new median", "time change", "relative change", "decided by", "why"]
COMPARE_COLUMNS = (Column("verdict"), Column("config"), Column("base median", right=True), Column("new median", right=True),
                   Column("time change", right=True), Column("relative change", right=True))


def _verdict_cell(item: ItemComparison) -> str:
    return item.verdict.value + ("" if item.gates or verdict_words.folded(item.verdict) else " (not gated)")


def _relative_cell(item: ItemComparison) -> str:
    """The change the verdict came from where it was no time (a ratio, a count), else the ratio to the run or vendor."""
    return format_change(item.relative if item.decided in (None, item.time, item.relative) else item.decided)


def comparison_groups(cmp: RunComparison) -> list[Group]:
    """The terminal's comparison table: a group per (verdict, kind, backend, problem, suite), worst
    verdict first; a row per item, its config part of the id beside the numbers; the note says
    what decided and why."""
    by: dict[tuple, list[ItemComparison]] = {}
    for item in sorted_items(cmp.items):
        key = (verdict_words.rank(item.verdict), item.verdict.value, item.key.kind, item.key.backend, item.problem, item.key.suite)
        by.setdefault(key, []).append(item)
    groups = []
    for (_, verdict, kind, backend, problem, suite), items in by.items():
        rows = []
        for item in items:
            time = item.time
            _, config = split_id(item.key.case_id, item.problem)
            decided = _decided(item)
            why = _note(item)
            note = f"{decided}: {why}" if decided != "-" and why else (why or ("" if decided == "-" else decided))
            rows.append(TextRow(
                (_verdict_cell(item), config + (" [instructions]" if item.metric == INSTRUCTIONS else ""),
                 _value_cell(item, time.base_median) if time else "-", _value_cell(item, time.new_median) if time else "-",
                 _change_cell(item), _relative_cell(item)),
                note, verdict_words.style(item.verdict) if item.gates or verdict_words.folded(item.verdict) else "yellow"))
        groups.append(Group(f"{verdict} | {kind} {backend} | {problem} [{suite}] ({len(items)})", tuple(rows)))
    return groups


def summary_line(cmp: RunComparison) -> str:
    counts = ", ".join(f"{n} {v.value}" for v, n in cmp.counts().items() if n)
    gate = f"{len(cmp.regressions)} regression(s)" if cmp.has_regression else "no regression"
    if cmp.gating_shifts:
        gate += f", {len(cmp.gating_shifts)} WHOLE-RUN SHIFT(s)"
    if cmp.gating_plans:
        gate += f", {len(cmp.gating_plans)} gating plan verdict(s)"
    t = cmp.thresholds
    overrides = "".join(f", {s}: {e:.0%}" for s, e in sorted(t.min_effect_by_suite.items()))
    return (
        f"{gate}; {counts or 'no items'}; Mann-Whitney U p < {t.alpha:g} and median change >= "
        f"{t.min_effect:.0%}{overrides}; items with rounds: between-round median test within this pair's resolution; "
        f"compile items: min/median-of-n factor"
    )


def drift_line(drift: Drift, min_effect: float) -> str:
    vendor = f", the vendor item {drift.vendor_change:+.1%}" if drift.vendor_change is not None else ""
    line = (
        f"{drift.backend} {drift.kind} [{drift.suite}]: the {drift.items} kernels moved {drift.change:+.1%} together "
        f"(geometric mean){vendor}; items are judged relative to their run"
    )
    if drift.spread is not None and drift.noise_floor > min_effect:
        line += (
            f"; their item-to-item spread is ±{drift.spread:.1%}, so a relative change under {drift.noise_floor:.0%} "
            "is NOISY here (this pair of runs cannot resolve less)"
        )
    elif drift.spread is not None:
        line += f"; item-to-item spread ±{drift.spread:.1%}"
    return line


def testbed_lines(cmp: RunComparison) -> list[str]:
    lines = []
    for pair in cmp.testbeds:
        if pair.differences:
            lines.append(f"TESTBED MISMATCH {pair.backend}: {'; '.join(pair.differences)} (compared anyway, on request)")
        else:
            lines.append(f"testbed {pair.base.describe()}")
    lines += [m.words for m in cmp.method_mismatches]
    drifts = [drift_line(d, cmp.thresholds.min_effect_for(d.suite)) for d in cmp.drifts]
    shifts = [s.words for s in cmp.shifts if s.verdict != "NONE"]
    return lines + shifts + drifts + list(cmp.notes)  # schedule-model changes: plan_rows


PLAN_HEADER = ["plan verdict", "item", "what changed, before -> after (compiler decisions; model cycles, never times)"]


def _changed_plans(cmp: RunComparison) -> list:
    return sorted((p for p in cmp.plans if p.verdict != SAME_PLAN), key=lambda p: (verdict_words.rank(p.verdict), p.key.case_id))


def plan_rows(cmp: RunComparison) -> list[list[str]]:
    """One row per case whose plan or schedule model changed (SAME PLAN left out), worst first."""
    return [[p.verdict + ("" if p.gates else " (not gated)"), f"{p.key.kind}-{p.key.backend}-{p.key.case_id}",
             summary_words(p)] for p in _changed_plans(cmp)]


PLAN_COLUMNS = (Column("plan verdict"), Column("config"))


def plan_groups(cmp: RunComparison) -> list[Group]:
    """The changed plans as the terminal shows them: a group per (verdict, kind, backend,
    problem), the change in words as each row's note."""
    by: dict[tuple, list] = {}
    problems = {i.key: i.problem for i in cmp.items}
    for p in _changed_plans(cmp):
        problem = problems.get(p.key, "")
        by.setdefault((p.verdict, p.key.kind, p.key.backend, problem), []).append(p)
    groups = []
    for (verdict, kind, backend, problem), plans in by.items():
        rows = tuple(TextRow((p.verdict + ("" if p.gates else " (not gated)"), split_id(p.key.case_id, problem)[1]),
                             summary_words(p), verdict_words.style(p.verdict) if p.gates else "yellow") for p in plans)
        groups.append(Group(f"{verdict} | {kind} {backend} | {problem} ({len(plans)})", rows))
    return groups


def plan_line(cmp: RunComparison) -> str:
    counts = ", ".join(f"{n} {v}" for v, n in ((v, sum(p.verdict == v for p in cmp.plans)) for v in PLAN_ORDER) if n)
    t = cmp.thresholds
    gate = ("MODEL WORSE gates" if t.gate_model else "MODEL WORSE shown, not gated") + \
        ("; any plan change gates (--gate-plan-changes)" if t.gate_plan else "; other plan changes shown, gated only on request")
    return (f"plans of {len(cmp.plans)} case(s): {counts}; a modeled II or cycles per core worse by more than "
            f"{t.model_threshold:.0%} is MODEL WORSE ({gate})")


# -- terminal (rich) ------------------------------------------------------------------------


def across_rows(ab: AcrossBackends) -> tuple[list[str], list[list[str]]]:
    header = ["problem", "tile", "loop"]
    for s in ab.backends:
        header += [f"{s.backend}: {s.metric.name}", f"{s.backend}: x vs own s1"]
    rows = []
    for row in ab.rows:
        cells = [row.problem, row.tile, row.loop_id]
        for s in ab.backends:
            point = s.point(row.case_id)
            cells.append(format_value(point.value, s.metric.unit) if point else "-")
            cells.append(f"{point.speedup:.2f}x" if point and point.speedup else "-")
        rows.append(cells)
    return header, rows


def best_lines(ab: AcrossBackends) -> list[str]:
    lines = []
    for s in ab.backends:
        for best in s.best:
            extra = f", {best.tflops:.1f} TFLOP/s" if best.tflops else ""
            vendor = s.vendor.get(best.problem)
            if vendor and s.metric.name == DEVICE_TIME:
                extra += f", {vendor / best.value:.2f}x of the vendor library"
            speed = f"{best.speedup:.2f}x vs s1" if best.speedup else "no s1/serial point"
            lines.append(
                f"{s.backend} best on {best.problem}: {best.tile} {best.loop_id} = "
                f"{format_value(best.value, s.metric.unit)} ({s.metric.name}), {speed}{extra}"
            )
    return lines


def metric_lines(ab: AcrossBackends) -> list[str]:
    lines = []
    for s in ab.backends:
        kind = "measured" if s.metric.measured else "MODEL, not a measurement"
        device = s.testbed.accelerator or "no accelerator"
        lines.append(f"{s.backend}: {s.metric.name} [{kind}; {s.metric.method}] on {device}, from {s.source}")
    return lines + list(ab.notes)


def facts(results: Results) -> list[ItemFacts]:
    return run_facts(results, TraitsCatalog.from_entry_points().get)


RUN_HEADER = ["kind", "backend", "problem", "config", "stages", "median", "rate", "of peak/BW", "x vendor", "plan", "status"]


def run_cells(f: ItemFacts) -> list[str]:
    rate, share = rate_cells(f)
    return [f.kind, f.backend, f.problem_id, f.config_id, "-" if f.num_stages is None else str(f.num_stages),
            format_seconds(f.median_s), rate, share, f"{f.vendor_ratio:.3f}x" if f.vendor_ratio else "-",
            f.plan_summary or "-", f.words]


def run_summary(results: Results) -> str:
    """The run's counts; a partial run (``tlbench.partial``) says PARTIAL first (partial_note.py says why)."""
    partial = "PARTIAL run (items missing, see the note): " if partial_lines(results) else ""
    return (
        f"{partial}{len(results.timed)} timed, {len(results.failures)} failed, {len(results.skips)} skipped; "
        f"backends {', '.join(results.backends)}"
    )


def history_reference_lines(result, statistic: str, last: int, source: str) -> list[str]:
    """What ``compare --history`` judged against: the testbeds, each item's reference run, the
    level changes step detection found (``result``: history/judge.py's ``HistoryComparison``)."""
    lines = [f"reference per item: the {statistic} of its last {last} runs on the same testbed in {source}"]
    lines += [f"  testbed {bed.testbed_id}: {bed.describe()}" for bed in result.testbeds]
    lines += [f"  {key.kind}-{key.backend}-{key.case_id}: {text}"
              for key, text in sorted(result.references.items(), key=lambda kv: kv[0].case_id)]
    if result.steps:
        lines.append("level changes (step detection over each item's history, then the new run):")
        lines += [f"  {f.key.kind}-{f.key.backend}-{f.key.case_id}: {f.step.change:+.1%} "
                  f"({f.step.before:.4g} -> {f.step.after:.4g}) starting at {f.at}" for f in result.steps]
    return lines
