"""Whether a detected level change can be the code's: the commits and run modes either side of it.

Contract (pure): ``step_contexts(points, steps, method_of)``: one ``StepContext`` per step:
``shared_commits`` (clean commits with runs at both levels: the environment moved it, not the
code), ``mode_changes`` (how the two bracketing runs measured the case differently),
``code_change`` and ``words``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ...core.backend_traits import generic_measurement_method
from ..compile_gate import compile_method
from .query import Point, record
from .steps import Step

MethodOf = Callable[[Mapping[str, Any]], Mapping[str, Any]]
SAME_COMMIT_WORDS = "same commit on both sides: the environment or the run's mode, not the code"


def generic_method(rec: Mapping[str, Any]) -> dict[str, Any]:
    """How a record was measured without a backend's traits: compile items their rounds and
    parallel jobs (compile_method.option_method), device items ``method`` and ``l2_flush_bytes``."""
    if rec.get("kind") == "compile":
        return compile_method.option_method(rec)
    return generic_measurement_method(rec)


@dataclass(frozen=True)
class StepContext:
    shared_commits: tuple[str, ...] = ()  # commit ids with runs at both levels
    mode_changes: tuple[str, ...] = ()  # "overlap: alone -> beside ..." for the bracketing runs

    @property
    def code_change(self) -> bool:
        return not self.shared_commits

    @property
    def words(self) -> str:
        parts = []
        if self.shared_commits:
            parts.append(f"{SAME_COMMIT_WORDS} (commit {', '.join(c[:10] for c in self.shared_commits)} ran at both levels)")
        if self.mode_changes:
            parts.append("measured otherwise across the step: " + "; ".join(self.mode_changes))
        return "; ".join(parts)


def _clean_commits(points: Sequence[Point]) -> set[str]:
    return {p.commit_id for p in points if p.commit_id and p.commit_dirty is False}


def _value_words(value: Any) -> str:
    return "not recorded" if value is None else str(value)


def mode_changes(before: Mapping[str, Any], after: Mapping[str, Any], method_of: MethodOf = generic_method) -> tuple[str, ...]:
    """What differs in how two records of one case were measured (see the module contract)."""
    out = []
    old, new = method_of(before), method_of(after)
    out += [f"{label} {_value_words(old[label])} -> {_value_words(new[label])}"
            for label in old if label in new and old[label] != new[label]]
    if before.get("kind") == "compile" and compile_method.width(before) != compile_method.width(after):
        out.append(f"compile rounds round-robin over {compile_method.width(before)} -> {compile_method.width(after)} items")
    if compile_method.overlap_words(before) != compile_method.overlap_words(after):
        out.append(f"timed {compile_method.overlap_words(before)} -> {compile_method.overlap_words(after)}")
    if before.get("shard") != after.get("shard"):
        out.append(f"shard {before.get('shard') or 'none (unsharded)'} -> {after.get('shard') or 'none (unsharded)'}")
    return tuple(out)


def step_contexts(points: Sequence[Point], steps: Sequence[Step], method_of: MethodOf = generic_method) -> list[StepContext]:
    bounds = [0, *(s.index for s in steps), len(points)]
    out = []
    for k, step in enumerate(steps):
        before, after = points[bounds[k]:step.index], points[step.index:bounds[k + 2]]
        shared = tuple(sorted(_clean_commits(before) & _clean_commits(after)))
        changes = mode_changes(record(points[step.index - 1]), record(points[step.index]), method_of)
        out.append(StepContext(shared, changes))
    return out
