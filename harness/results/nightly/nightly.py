"""The nightly gate as a function: run suites, compare with the baselines, write markdown.

Contract: ``run_nightly(plan) -> NightlyOutcome``: runs each suite (nightly_runner.py) or reads
``plan.given``; merges the usable files and splits them per backend into
``out_dir/<backend>-<device>.json``; compares each with its baseline, else ``plan.history``
(nightly_reference.py), re-measuring flagged regressions (remeasure.py); writes
``out_dir/summary.md`` and adds the files to ``plan.history``.  Exit 1 on a reproduced
regression, else 2 for a suite without usable JSON or a refused comparison, else 0 (an
interrupt: 128 + signal).  Every file written is first passed to ``plan.guard``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from . import nightly_reference, remeasure
from ..history.schema import HistoryError
from ..compare.comparison import CompareError, RunComparison
from ..compare.judgement import Thresholds
from .night_costs import cost_markdown
from .nightly_runner import NightInterrupted, NightRuns, SuiteRun, SuiteRunner, interrupted_markdown
from ..report.report import comparison_markdown, md_table
from ..report.report_markdown import escape_html
from ..files.store import (ResultsError, baseline_name, load_results, merge_documents,
                           parse_results, split_by_backend, write_document)

@dataclass(frozen=True)
class NightlyPlan:
    suites: tuple[Path, ...]  # files, or folders whose test_*.py files are suites
    backend: str  # --tlbench-backend for every suite (a name, a comma list, or auto)
    out_dir: Path
    baseline_dir: Path
    pytest_args: tuple[str, ...] = ()
    timeout_s: float = 3600.0
    thresholds: Thresholds = field(default_factory=Thresholds)
    step_summary: Path | None = None
    history: Path | None = None  # the SQLite history this night's runs are added to
    python: str = sys.executable
    cwd: Path | None = None
    remeasure: bool = True  # run flagged items once more before calling them regressions
    given: tuple[Path, ...] = ()  # results files to gate instead of running the suites
    guard: Callable[[Sequence[Path]], None] = lambda paths: None  # raises before a write would destroy an input
    say: Callable[[str], None] | None = None  # a line per suite as it starts and ends (default: stdout)

    def suite_files(self) -> list[Path]:
        files: list[Path] = []
        for path in self.suites:
            files += sorted(path.glob("test_*.py")) if path.is_dir() else [path]
        return files


@dataclass(frozen=True)
class BackendGate:
    backend: str
    results_path: Path
    baseline_path: Path
    comparison: RunComparison | None = None
    problem: str = ""  # why there is no comparison
    unusable: bool = False  # the problem makes the night fail (testbed mismatch, bad baseline)
    first: RunComparison | None = None  # the comparison before re-measuring flagged items
    remeasured: tuple[str, ...] = ()  # node ids run again (the flagged items and their in-run references)
    again: RunComparison | None = None  # the re-measured items against the same reference items
    reference: nightly_reference.Reference | None = None  # what ``comparison`` judged against


@dataclass(frozen=True)
class NightlyOutcome:
    suite_runs: tuple[SuiteRun, ...]
    gates: tuple[BackendGate, ...]
    markdown: str
    summary_path: Path
    exit_code: int


def suite_runner(plan: NightlyPlan) -> SuiteRunner:
    """The runner of the night's pytest processes (harness/results/nightly/nightly_runner.py)."""
    args = (f"--tlbench-backend={plan.backend}", "--benchmark-only", "-p", "no:cacheprovider", *plan.pytest_args)
    return SuiteRunner(plan.python, args, plan.out_dir, plan.timeout_s, plan.cwd, say=plan.say, guard=plan.guard)


def _given_run(path: Path) -> SuiteRun:
    """A results file made elsewhere, in the place of a suite run."""
    try:
        results = load_results(path)
    except ResultsError as exc:
        return SuiteRun(path, "no results", None, 0.0, path, message=str(exc))
    partial = (results.document.get("tlbench") or {}).get("partial")
    if partial:
        reasons = partial.get("reasons") if isinstance(partial, dict) else None
        return SuiteRun(path, "partial", None, 0.0, path, results=results,
                        message="PARTIAL: " + "; ".join(map(str, reasons or ["the run did not cover every item"])))
    return SuiteRun(path, "ok", None, 0.0, path, results=results)


def _merged_per_backend(plan: NightlyPlan, runs: Sequence[SuiteRun]) -> dict[str, Path]:
    documents = [r.results.document for r in runs if r.results is not None]
    if not documents:
        return {}
    split = {backend: (document, plan.out_dir / baseline_name(parse_results(document).testbed(backend)))
             for backend, document in split_by_backend(merge_documents(documents)).items()}
    plan.guard([path for _, path in split.values()])
    return {backend: write_document(document, path) for backend, (document, path) in split.items()}


def gate_against_baselines(
    merged: dict[str, Path], baseline_dir: Path, thresholds: Thresholds, history: Path | None = None
) -> list[BackendGate]:
    """Compare each backend's results file with the baseline of the same name, else with the history."""
    gates = []
    for backend, path in sorted(merged.items()):
        baseline = baseline_dir / path.name
        try:
            reference = nightly_reference.reference_for(path, baseline_dir, history)
            if isinstance(reference, str):
                problem = f"{reference}: this night gated nothing for {backend}; to make this run the baseline: tlbench baseline update {path}"
                gates.append(BackendGate(backend, path, baseline, problem=problem))
                continue
            comparison = reference.compare(path, thresholds)
        except (ResultsError, CompareError, HistoryError) as exc:
            gates.append(BackendGate(backend, path, baseline, problem=str(exc), unusable=True))
            continue
        gates.append(BackendGate(backend, path, reference.path, comparison=comparison, reference=reference))
    return gates


def _counts(run: SuiteRun) -> list[str]:
    if run.results is None:
        return ["-", "-", "-"]
    return [str(len(run.results.timed)), str(len(run.results.failures)), str(len(run.results.skips))]


def _gating(cmp: RunComparison) -> int:
    return len(cmp.regressions) + len(cmp.gating_shifts) + len(cmp.gating_plans)


def _first_line(gates: Sequence[BackendGate]) -> str:
    """What the night judged, and for each backend it did not: its comparison was refused
    (``unusable``: the reference is there, the comparison could not be made; why below), or it had
    no baseline and no history to judge against."""
    judged = [f"{g.backend} against the {g.reference.kind}" for g in gates if g.comparison is not None and g.reference]
    refused = [g.backend for g in gates if g.comparison is None and g.unusable]
    idle = [g.backend for g in gates if g.comparison is None and not g.unusable]
    why = ([f"the comparison was refused for {', '.join(refused)} (why below)"] if refused else []) + (
        [f"no baseline and no history to judge {', '.join(idle)} against"] if idle else [])
    if gates and not judged:
        return f"## tlbench nightly: GATED NOTHING - {'; '.join(why)}"
    words = "; ".join(([f"judged {', '.join(judged)}"] if judged else [])
                      + ([f"gated nothing for {', '.join(refused + idle)}: {'; '.join(why)}"] if why else []))
    return "## tlbench nightly" + (f": {words}" if words else "")


def nightly_markdown(runs: Sequence[SuiteRun], gates: Sequence[BackendGate], exit_code: int) -> str:
    verdict = {0: ":white_check_mark: no regression", 1: ":x: REGRESSION", 2: ":warning: unusable results"}[exit_code]
    out = [_first_line(gates), "", f"**{verdict}** (exit {exit_code})", ""]
    rows = [
        [str(r.suite), r.status, *_counts(r), f"{r.seconds:.0f} s", r.message or str(r.log)]
        for r in runs
    ]
    out += [md_table(["suite", "status", "timed", "failed", "skipped", "wall", "note / log"], rows), ""]
    for gate in gates:
        against = gate.reference.words if gate.reference is not None else f"baseline `{gate.baseline_path}`"
        title = f"{gate.backend}: `{gate.results_path.name}` vs {against}"
        if gate.first is not None:
            still = _gating(gate.comparison) if gate.comparison else 0
            first = _gating(gate.first)
            out += [f"**{gate.backend}: the first comparison flagged {first} regression(s); {len(gate.remeasured)} item(s) "
                    f"re-measured once; {still} reproduced** (only those gate; each flagged item re-measured in one process "
                    "beside its in-run reference, and judged against the same reference items)", ""]
        if gate.comparison is not None:
            out.append(comparison_markdown(gate.comparison, title=title))
        if gate.again is not None:
            out += ["<details><summary>the re-measurement, judged on its own</summary>", "",
                    comparison_markdown(gate.again, title=f"{gate.backend}: re-measured items vs the same items of {against}"),
                    "</details>", ""]
        else:
            out += [f"### {title}", "", f"{':warning: ' if gate.unusable else ''}{escape_html(gate.problem)}", ""]
        out += [*_visibility(gate.results_path), ""]
    if not gates:
        out.append("No suite left usable results: nothing was compared.")
    return "\n".join(out) + "\n"


def _visibility(path: Path) -> list[str]:
    try:
        return nightly_reference.visibility_lines(load_results(path))
    except ResultsError:
        return []


def _remeasure(plan: NightlyPlan, gates: Sequence[BackendGate]) -> tuple[BackendGate, ...]:
    """Run the flagged items once more beside their in-run references, judge those against the
    same reference items, and keep only the regressions that reproduce (remeasure.py)."""
    plans = {g.backend: remeasure.plan_remeasure(g.comparison, load_results(g.results_path))
             for g in gates if g.comparison is not None and g.comparison.has_regression}
    nodeids = sorted({n for p in plans.values() for n in p.nodeids})
    rerun = suite_runner(plan).run(Path("remeasure"), nodeids, name="remeasure", place="re-measure") if nodeids else None
    out = []
    for gate in gates:
        todo = plans.get(gate.backend)
        if todo is None or gate.comparison is None:
            out.append(gate)
            continue
        first = gate.comparison
        stands = replace(first, notes=first.notes + todo.unpaired)  # what holds where nothing is re-measured
        if not todo.nodeids:
            out.append(replace(gate, comparison=stands, first=first))
            continue
        if rerun is None or rerun.results is None:
            why = f"re-measurement failed ({rerun.status}: {rerun.message}); first result stands" if rerun else ""
            out.append(replace(gate, comparison=stands, problem=why, first=first, remeasured=todo.nodeids))
            continue
        path = gate.results_path.with_name(gate.results_path.stem + "-remeasured.json")
        plan.guard([path])
        write_document(remeasure.restrict(rerun.results.document, todo.keys), path)
        again = gate.reference.compare(path, plan.thresholds, keys=todo.keys) if gate.reference is not None else first
        out.append(replace(gate, comparison=remeasure.combine(first, again, todo), first=first, remeasured=todo.nodeids,
                           again=again))
    return tuple(out)


def _exit_code(runs: Sequence[SuiteRun], gates: Sequence[BackendGate]) -> int:
    if any(g.comparison is not None and g.comparison.has_regression for g in gates):
        return 1
    if any(not r.usable for r in runs) or any(g.unusable for g in gates) or not gates:
        return 2
    return 0


def _add_to_history(history: Path, paths) -> str:
    """Add the night's per-backend files to the history database; markdown lines saying so."""
    from ..history.ingest import add_files
    from ..history.schema import open_history

    conn = open_history(history)
    try:
        outcomes = add_files(conn, sorted(paths))
    finally:
        conn.close()
    return "\n### History\n\n" + "".join(f"- {o.line()}\n" for o in outcomes) + f"- database: `{history}`\n"


def run_nightly(plan: NightlyPlan) -> NightlyOutcome:
    suites = plan.suite_files()
    if not suites and not plan.given:
        raise ValueError(f"no suite files in {', '.join(map(str, plan.suites))}")
    if plan.history is not None and plan.history.exists():  # refused now, not after the night: another program's file
        from ..history.schema import open_history

        open_history(plan.history).close()
    for sub in ("json", "logs"):
        (plan.out_dir / sub).mkdir(parents=True, exist_ok=True)
    runner = suite_runner(plan)
    if plan.given:
        runs = tuple(_given_run(p) for p in plan.given)
    else:
        night = runner.run_all(suites)
        if night.interrupted:
            return _write_interrupted(plan, night)
        runs = night.runs
    merged = _merged_per_backend(plan, runs)
    gates = tuple(gate_against_baselines(merged, plan.baseline_dir, plan.thresholds, plan.history))
    if plan.remeasure:
        try:
            with runner.signals():
                gates = _remeasure(plan, gates)
        except NightInterrupted as stop:
            return _write_interrupted(plan, NightRuns(runs + ((stop.run,) if stop.run else ()), str(stop)), "the re-measurement")
    exit_code = _exit_code(runs, gates)
    markdown = nightly_markdown(runs, gates, exit_code)
    markdown += cost_markdown([r.results.document for r in runs if r.results is not None])  # where the time went
    if plan.history is not None:
        markdown += _add_to_history(plan.history, merged.values())
    summary = plan.out_dir / "summary.md"
    plan.guard([summary])
    summary.write_text(markdown, encoding="utf-8")
    if plan.step_summary is not None:
        with Path(plan.step_summary).open("a", encoding="utf-8") as step:
            step.write(markdown)
    return NightlyOutcome(runs, gates, markdown, summary, exit_code)


def _write_interrupted(plan: NightlyPlan, night: NightRuns, stage: str = "") -> NightlyOutcome:
    """A night stopped by a signal: the summary of what finished, exit 128 + the signal's number."""
    import signal

    markdown = interrupted_markdown(night, stage)
    summary = plan.out_dir / "summary.md"
    summary.write_text(markdown, encoding="utf-8")
    if plan.step_summary is not None:
        with Path(plan.step_summary).open("a", encoding="utf-8") as step:
            step.write(markdown)
    return NightlyOutcome(night.runs, (), markdown, summary, 128 + int(getattr(signal, night.interrupted, signal.SIGINT)))
