"""``tlbench report --stages --json``: the stage report as one JSON document.

Contract: ``stage_json(report, source)`` returns the plain-JSON dict of
harness/results/schema/stages-output.schema.json in the shared ``--json`` envelope.
"""

from __future__ import annotations

from .stage_types import StageLine, StageReport, TileGroup
from ..results.report.json_output import envelope, num


def _line(r: StageLine) -> dict[str, object]:
    return {"label": r.label, "loop_form": r.loop_form, "num_stages": r.num_stages, "case_id": r.case_id, "status": r.status,
            "path": r.path, "buffer_versions": r.versions, "median_s": num(r.measured_s), "method": r.method or None,
            "modeled_cycles_per_core": num(r.modeled_cycles), "loop_cycles": num(r.loop_cycles), "ii_cycles": num(r.ii_cycles),
            "speedup_vs_1": num(r.speedup_vs_1), "speedup_vs_0": num(r.speedup_vs_0), "predicted": num(r.predicted),
            "predicted_ii": num(r.predicted_ii), "relative_error": num(r.relative_error),
            "onchip_scope": r.onchip_scope or None, "onchip_bytes": r.onchip_bytes, "onchip_limit": r.onchip_limit}


def _group(g: TileGroup) -> dict[str, object]:
    v = g.verdict
    best = g.best_point()
    return {
        "backend": g.backend, "kernel": g.kernel, "problem": g.problem, "tile": g.tile, "testbed": g.testbed, "basis": g.basis,
        "k_steps_per_block": g.iterations,
        "model": {"note": g.model_note or None,
                  "latency_ratio": num(g.fit.latency_ratio) if g.fit is not None else None,
                  "min_sufficient_depth": v.min_sufficient_depth if v else None,
                  "recommended": v.model_recommended if v else None},
        "variants": [_line(r) for r in g.rows],
        "verdict": None if v is None else {"recommended": v.recommended, "best": v.best, "why": v.why, "notes": list(v.notes),
                                           "budget_max_stages": v.budget_max_stages},
        "vendor": {"case_id": g.vendor_case, "median_s": num(g.vendor_s), "best_label": best.label if best else None,
                   "best_median_s": num(best.measured_s) if best else None, "vendor_ratio": num(g.vendor_ratio())},
    }


def stage_json(report: StageReport, source: str) -> dict[str, object]:
    return {**envelope("report --stages"), "path": source, "groups": [_group(g) for g in report.groups],
            "left_out": list(report.ignored), "vendor_items": report.vendors}
