"""The ``--json`` documents of ``report``, ``compare --across-backends`` and ``history show``.

Contract: each returns a plain-JSON dict of what the command's table shows, unformatted, in
json_output's envelope (schemas beside results.schema.json): ``report_json(results, facts)``,
``across_json(across)``, ``history_json(trends, source)``.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..compare.compare_backends import DEVICE_TIME, AcrossBackends
from .json_output import envelope, num, partial_of
from ..files.run_facts import ItemFacts
from ..files.store import Results
from .search_account import search_accounts


def _item(f: ItemFacts) -> dict[str, Any]:
    return {
        "suite": f.suite, "backend": f.backend, "kind": f.kind, "case_id": f.case_id, "problem_id": f.problem_id,
        "config_id": f.config_id, "family": f.family, "status": f.status, "vendor": f.vendor,
        "num_stages": f.num_stages, "loop_form": f.loop_form,
        "median_s": num(f.median_s), "samples": f.samples, "method": f.method, "criterion": f.criterion, "flag": f.flag,
        "tflops": num(f.tflops), "gbps": num(f.gbps), "bound": f.bound,
        "pct_of_peak": num(f.pct_of_peak), "pct_of_bandwidth": num(f.pct_of_bandwidth),
        "vendor_ratio": num(f.vendor_ratio), "vendor_case_id": f.vendor_case_id,
        "modeled_cycles_per_core": num(f.modeled_cycles),
        "plan": None if f.plan_summary is None and f.pipeline is None else {"summary": f.plan_summary, "pipeline": f.pipeline},
        "stage": f.stage, "error": f.error, "reason": f.reason,
    }


def report_json(results: Results, facts: Sequence[ItemFacts]) -> dict[str, Any]:
    partial = partial_of(results)
    return {
        **envelope("report", 0, "read" + (" (a PARTIAL run)" if partial else "")),
        "path": results.path,
        "backends": list(results.backends),
        "testbeds": {b: results.testbed(b).describe() for b in results.backends},
        "partial": partial,
        "counts": {"timed": len(results.timed), "failed": len(results.failures), "skipped": len(results.skips)},
        "search": [a.to_dict() for a in search_accounts([*results.records, *results.failed, *results.skipped])],
        "items": [_item(f) for f in facts],
    }


def across_json(ab: AcrossBackends) -> dict[str, Any]:
    backends = []
    for s in ab.backends:
        points = [{"case_id": p.case_id, "problem": p.problem, "tile": p.tile, "loop_id": p.loop_id, "num_stages": p.num_stages,
                   "value": num(p.value), "speedup": num(p.speedup), "reference": p.reference, "tflops": num(p.tflops)}
                  for p in s.points]
        best = []
        for p in s.best:
            vendor = s.vendor.get(p.problem)
            ratio = vendor / p.value if vendor and p.value and s.metric.name == DEVICE_TIME else None
            best.append({"problem": p.problem, "case_id": p.case_id, "tile": p.tile, "loop_id": p.loop_id,
                         "num_stages": p.num_stages, "value": num(p.value), "speedup": num(p.speedup), "vendor_ratio": num(ratio)})
        backends.append({"backend": s.backend, "source": s.source, "testbed": s.testbed.describe(),
                         "metric": {"name": s.metric.name, "unit": s.metric.unit, "measured": s.metric.measured,
                                    "method": s.metric.method},
                         "points": points, "best": best})
    return {**envelope("compare --across-backends"), "backends": backends, "notes": list(ab.notes)}


def history_json(trends: Iterable[Any], source: str, skipped: Sequence[str] = ()) -> dict[str, Any]:
    out = []
    for t in trends:
        s = t.series
        out.append({
            "testbed_id": s.testbed.testbed_id, "testbed": s.testbed.describe(), "suite": s.suite, "kind": s.kind,
            "case_id": s.case_id, "problem": s.problem, "runs": len(s.points),
            "points": [{"run_id": p.run_id, "started_at": p.started_at, "commit_id": p.commit_id, "commit_dirty": p.commit_dirty,
                        "status": p.status, "median_s": num(p.median_s), "tflops": num(p.tflops),
                        "pct_of_peak": num(p.pct_of_peak)} for p in t.shown],
            "best_median_s": num(t.best), "last_vs_best": num(t.last_vs_best),
            "last_step": None if t.step is None else {"change": num(t.step.change), "before": num(t.step.before),
                                                      "after": num(t.step.after), "run_id": t.step_run},
        })
    return {**envelope("history show"), "history": source, "series": out, "rows_skipped": list(skipped)}
