"""The ``--json`` documents of ``report``, ``compare --across-backends`` and ``history show``.

Contract: each function returns a plain-JSON dict carrying what the command's table shows,
unformatted, in the envelope of harness/results/report/json_output.py (``tlbench_output``,
``output_version``, ``exit_code``, ``exit_reason``); schemas beside results.schema.json:
- ``report_json(results, facts)`` (report-output.schema.json): the run's counts, testbeds,
  partial marker and one entry per item from harness/results/files/run_facts.py: key, problem and
  config ids, ``num_stages`` / ``loop_form``, median, samples, method, flag, TFLOP/s, GB/s,
  the roofline's ``bound``, % of peak, % of bandwidth, the vendor ratio and the vendor item it
  is against, modeled cycles (a model), the plan's one-line summary and pipeline kind, and the
  failure stage / error or skip reason.
- ``across_json(across)`` (across-output.schema.json): per backend its metric (name, unit,
  measured or a model, method), source file and testbed, every point (problem, tile, loop,
  num_stages, value, speedup over its own 1-stage point) and the best per problem with the
  vendor ratio where the metric is device time.
- ``history_json(rows, source)`` (history-output.schema.json): one entry per case and testbed
  with ITS OWN last runs (run id, date, commit, status, median, TFLOP/s, % of peak), its best
  median, the last against the best and its latest level change
  (harness/results/history/trend.py's ``CaseTrend``).
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
        "counts": {"timed": len(results.records), "failed": len(results.failed), "skipped": len(results.skipped)},
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
