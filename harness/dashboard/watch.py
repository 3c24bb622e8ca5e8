"""The dashboard as a trend monitor: every detected level change, and a verdict per workload.

Contract (pure): ``regressions(series, min_effect, method_of)``: one ``LevelChange`` per step in a
case's timed runs (SLOWER / FASTER only for a code change, SAME COMMIT when both levels share a
commit), newest first.  ``workloads(series, changes)``: one ``Workload`` per (suite, testbed,
kind): FAILED, else a code change's SLOWER / FASTER starting at its newest run, else SAME.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ..results.compare import verdict_words
from ..results.history.query import Point, Series, TestbedRow
from ..results.history.step_context import MethodOf, StepContext, generic_method, step_contexts
from ..results.history.steps import detect_steps

SAME_COMMIT = "SAME COMMIT"


@dataclass(frozen=True)
class LevelChange:
    suite: str
    testbed: TestbedRow
    kind: str
    case_id: str
    problem: str
    verdict: str  # SLOWER | FASTER (a code change) | SAME COMMIT (the two levels share a commit)
    change: float
    before_s: float
    after_s: float
    last_before: Point
    first_after: Point
    runs_after: int  # runs at the new level so far
    latest: bool  # the new level starts at the case's newest run
    context: StepContext = StepContext()

    @property
    def colour(self) -> str:
        return verdict_words.colour(self.verdict)

    @property
    def code_change(self) -> bool:
        return self.context.code_change

    @property
    def direction(self) -> str:
        return "slower" if self.change > 0 else "faster"


def run_words(point: Point) -> str:
    commit = (point.commit_id or "no commit")[:10] + ("+dirty" if point.commit_dirty else "")
    return f"run {point.run_id} ({(point.started_at or '?')[:16].replace('T', ' ')}, commit {commit})"


def regressions(all_series: Iterable[Series], min_effect: float = 0.05, method_of: MethodOf = generic_method) -> list[LevelChange]:
    out = []
    for s in all_series:
        timed = s.timed
        if len(timed) < 3:
            continue
        found = detect_steps([p.median_s for p in timed], min_effect)
        for step, context in zip(found, step_contexts(timed, found, method_of)):
            verdict = SAME_COMMIT if not context.code_change else "SLOWER" if step.change > 0 else "FASTER"
            out.append(LevelChange(s.suite, s.testbed, s.kind, s.case_id, s.problem, verdict, step.change,
                                   step.before, step.after, timed[step.index - 1], timed[step.index],
                                   len(timed) - step.index, step.index == len(timed) - 1, context))
    return sorted(out, key=lambda c: ((c.first_after.started_at or ""), c.first_after.run_id, -verdict_words.rank(c.verdict)),
                  reverse=True)


@dataclass(frozen=True)
class Workload:
    suite: str
    testbed: TestbedRow
    kind: str
    cases: int
    newest: Point
    verdict: str  # FAILED | SLOWER | FASTER | SAME
    detail: str

    @property
    def colour(self) -> str:
        return verdict_words.colour(self.verdict)


def workloads(all_series: Sequence[Series], changes: Sequence[LevelChange]) -> list[Workload]:
    groups: dict[tuple[str, int, str], list[Series]] = {}
    for s in all_series:
        if any(p.status in ("timed", "failed") for p in s.points):  # a case only ever skipped is no workload here
            groups.setdefault((s.suite, s.testbed.testbed_id, s.kind), []).append(s)
    out = []
    for (suite, bed, kind), group in sorted(groups.items(), key=lambda kv: kv[0]):
        newest = max((p for s in group for p in s.points if p.status in ("timed", "failed")),
                     key=lambda p: (p.started_at or "", p.run_id))
        failed = sum(1 for s in group for p in s.points if p.run_id == newest.run_id and p.status == "failed")
        moved = [c for c in changes if (c.suite, c.testbed.testbed_id, c.kind) == (suite, bed, kind)
                 and c.first_after.run_id == newest.run_id]  # the steps AT the run the row names, no other
        slower, faster = sum(c.verdict == "SLOWER" for c in moved), sum(c.verdict == "FASTER" for c in moved)
        same_commit = sum(not c.code_change for c in moved)
        verdict = "FAILED" if failed else "SLOWER" if slower else "FASTER" if faster else "SAME"
        parts = [f"{failed} failed in the newest run"] if failed else []
        parts += [f"{n} case(s) {word} at the newest run" for n, word in ((slower, "slower"), (faster, "faster")) if n]
        if same_commit:
            parts.append(f"{same_commit} case(s) moved at the newest run with the same commit on both sides "
                         "(the environment or the run's mode, not the code)")
        detail = "; ".join(parts) if parts else "no level change at the newest run"
        out.append(Workload(suite, group[0].testbed, kind, len(group), newest, verdict, detail))
    return sorted(out, key=lambda w: (verdict_words.rank(w.verdict), w.suite, w.testbed.testbed_id, w.kind))
