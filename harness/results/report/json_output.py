"""The machine-readable output of ``compare`` (``--json``), and what every ``--json`` shares.

Contract: every document carries ``tlbench_output``, ``output_version``, ``exit_code`` and
``exit_reason`` (``envelope``), numbers unformatted (``num``), and has a JSON Schema in
harness/results/schema/.  ``compare_json(comparison, exit_code, inputs)``;
``history_compare_extra(...)``: what ``compare --history`` adds; ``compare_output_schema()``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable

from ..compare.comparison import ItemComparison, RunComparison
from ..compare import verdict_words
from ..compare.judgement import Judgement
from ..files.store import Results

OUTPUT_VERSION = 1
SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schema"


def compare_output_schema() -> dict[str, Any]:
    """The JSON Schema of ``compare --json``: schema/compare-output.schema.json with the item
    verdict's enum read from the verdict table (verdict_words.py), the one list of words."""
    schema = json.loads((SCHEMA_DIR / "compare-output.schema.json").read_text(encoding="utf-8"))
    schema["$defs"]["verdict"]["enum"] = verdict_words.item_words()
    return schema


def envelope(command: str, exit_code: int = 0, reason: str = "read") -> dict[str, Any]:
    return {"tlbench_output": command, "output_version": OUTPUT_VERSION, "exit_code": exit_code, "exit_reason": reason}


def num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def partial_of(results: Results) -> dict[str, Any] | None:
    partial = (results.document.get("tlbench") or {}).get("partial")
    return partial if isinstance(partial, dict) and partial else None


def _judgement(j: Judgement | None) -> dict[str, Any] | None:
    if j is None:
        return None
    return {"basis": j.basis, "base": num(j.base_median), "new": num(j.new_median), "change": num(j.change),
            "p_value": num(j.p_value), "verdict": j.verdict.value, "reason": j.reason}


def _item(item: ItemComparison) -> dict[str, Any]:
    decisive = item.decisive
    return {
        "suite": item.key.suite, "backend": item.key.backend, "kind": item.key.kind, "case_id": item.key.case_id,
        "problem": item.problem, "verdict": item.verdict.value, "gates": item.gates, "regression": item.is_regression,
        "decided_by": item.decided_by, "rule": item.rule if decisive is not None else None,
        "change": num(decisive.change) if decisive is not None else None,
        "reason": decisive.reason if decisive is not None else item.detail,
        "detail": item.detail, "reference": item.reference or None,
        "time": _judgement(item.time), "relative": _judgement(item.relative), "min_effect": item.min_effect,
    }


def compare_json(comparison: RunComparison, exit_code: int, inputs: Iterable[Results]) -> dict[str, Any]:
    base, new = list(inputs)
    return {
        **envelope("compare", exit_code, comparison.exit_reason()),
        "base": {"path": base.path, "partial": partial_of(base)},
        "new": {"path": new.path, "partial": partial_of(new)},
        "thresholds": {"min_effect": comparison.thresholds.min_effect, "alpha": comparison.thresholds.alpha,
                       "min_effect_by_suite": dict(comparison.thresholds.min_effect_by_suite)},
        "counts": {v.value: n for v, n in comparison.counts().items()},
        "regressions": len(comparison.regressions),
        "items": [_item(i) for i in comparison.items],
        "shifts": [{"suite": s.suite, "backend": s.backend, "kind": s.kind, "items": s.items, "verdict": s.verdict,
                    "gates": s.gates, "change": num(s.change), "witness_change": num(s.vendor_change), "p_value": num(s.p_value),
                    "words": s.words} for s in comparison.shifts],
        "testbed_mismatches": [{"backend": t.backend, "differences": t.differences} for t in comparison.testbed_mismatches],
        "method_mismatches": [{"backend": m.backend, "kind": m.kind, "items": len(m.items), "case_ids": list(m.items),
                               "base": dict(m.base), "new": dict(m.new), "changes": m.changes} for m in comparison.method_mismatches],
        "plans": [{"backend": p.key.backend, "kind": p.key.kind, "case_id": p.key.case_id, "suite": p.key.suite,
                   "verdict": p.verdict, "gates": p.gates, "changes": list(p.changes), "model": list(p.model)}
                  for p in comparison.plans if p.verdict != "SAME PLAN"],
        "plan_counts": _plan_counts(comparison),
        "model_changes": [{"backend": m.key.backend, "kind": m.key.kind, "case_id": m.key.case_id,
                           "base_cycles": num(m.base_cycles), "new_cycles": num(m.new_cycles),
                           "base_ii": num(m.base_ii), "new_ii": num(m.new_ii)} for m in comparison.model_changes],
        "notes": list(comparison.notes),
    }


def _plan_counts(comparison: RunComparison) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p in comparison.plans:
        counts[p.verdict] = counts.get(p.verdict, 0) + 1
    return counts


def history_compare_extra(result: Any, statistic: str, last: int, source: str) -> dict[str, Any]:
    """``compare --history --json``'s own keys: the history as the base, each item's reference
    run, the level changes found and the stored rows left out.  ``result``:
    harness/results/history/judge.py's ``HistoryComparison``."""
    return {
        "base": {"path": source, "partial": None, "history": {"statistic": statistic, "last": last,
                                                               "testbeds": [t.describe() for t in result.testbeds]}},
        "references": [{"backend": k.backend, "kind": k.kind, "case_id": k.case_id, "reference": text}
                       for k, text in sorted(result.references.items(), key=lambda kv: (kv[0].kind, kv[0].backend, kv[0].case_id))],
        "level_changes": [{"backend": f.key.backend, "kind": f.key.kind, "case_id": f.key.case_id, "change": num(f.step.change),
                           "before": num(f.step.before), "after": num(f.step.after), "at": f.at} for f in result.steps],
        "skipped_rows": list(result.skipped),
    }
