"""Reading one record's plan for the stage report.

Contract: pure functions of a record's ``plan`` / ``config`` sections (the scheduled K loop, the pipelined buffers
and their on-chip use, the path label, an item's status, K steps per block) and small ratio helpers.
"""

from __future__ import annotations

from typing import Any, Mapping
from ..results.report.table import format_seconds
from .stage_types import StageLine


def k_loop(plan: Mapping[str, Any]) -> Mapping[str, Any]:
    loops = (plan.get("schedule_model") or {}).get("loops") or []
    return loops[0] if loops else {}


def pipelined_buffers(plan: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The operand buffers the loop multi-buffers (the scope of the first buffer)."""
    bufs = [b for b in plan.get("buffers") or [] if isinstance(b, Mapping)]
    if not bufs:
        return []
    scope = bufs[0].get("scope")
    return [b for b in bufs if b.get("scope") == scope]


def onchip_use(plan: Mapping[str, Any]) -> tuple[str, int | None, int | None]:
    bufs = pipelined_buffers(plan)
    per_scope = plan.get("bytes_per_scope") or {}
    scope = bufs[0].get("scope") if bufs else next(iter(per_scope), "")
    return scope or "", per_scope.get(scope), (plan.get("limits") or {}).get(scope)


def path_label(plan: Mapping[str, Any]) -> str:
    pipe = plan.get("pipeline") or {}
    kind = pipe.get("kind")
    if kind is None:
        return "-"
    if kind == "z3-modulo":
        return "Z3 modulo schedule" + (" + offset" if pipe.get("enable_offset") else "")
    features = plan.get("features") or {}
    copy = "TMA" if features.get("tma") else "cp.async" if features.get("cp_async") else "plain loads"
    if kind == "warp-specialized":
        return "warp-specialized TMA"
    if kind == "software-pipeline":
        return f"software pipeline, {copy}"
    return f"no pipeline, {copy}" if kind == "none" else str(kind)


def item_status(rec: Mapping[str, Any]) -> str:
    status = rec.get("status", "ok")
    if status == "failed":
        lines = [ln.strip() for ln in str(rec.get("error", "")).splitlines() if ln.strip()]
        return f"failed ({rec.get('stage', '?')}): {lines[-1][:100] if lines else ''}"
    return f"skipped: {str(rec.get('reason', ''))[:100]}" if status == "skipped" else "ok"


def k_steps_per_block(family: Any, problem: Any, config: Any, recs: list[Mapping[str, Any]]) -> int | None:
    """The schedule's trip count where a plan has one, else the family's ``loop_trips``."""
    trips = [t for r in recs if (t := k_loop(r.get("plan") or {}).get("trip_count"))]
    return int(trips[0]) if trips else family.loop_trips(problem, config)


def problem_sort(label: str) -> tuple:
    dims = label.split(" ")[0].split("x")
    return tuple(int(d) if d.isdigit() else 0 for d in dims)


def basis_value(row: StageLine, basis: str) -> float | None:
    return row.measured_s if basis == "device" else row.modeled_cycles if basis == "model" else None


def ratio_of(reference: float | None, value: float | None) -> float | None:
    return reference / value if reference and value else None


def relative_error_of(predicted: float | None, reference: float | None) -> float | None:
    return (predicted - reference) / reference if predicted is not None and reference else None


def max_versions(versions: str) -> int:
    return max((int(v) for v in versions.split("/") if v.isdigit()), default=0)


def _stage_of(rec: Mapping[str, Any]) -> int | None:
    stages = (rec.get("config") or {}).get("num_stages")
    return stages if isinstance(stages, int) and not isinstance(stages, bool) else None


def budget_max_stages(recs: list[Mapping[str, Any]]) -> int | None:
    """Deepest num_stages whose buffers fit their scope's limit: from a plan's per-version bytes,
    else linear through the on-chip bytes of two depths; None when neither can be read."""
    for rec in recs:
        plan = rec.get("plan") or {}
        scope, used, limit = onchip_use(plan)
        bufs = pipelined_buffers(plan)
        if not (used and limit and bufs) or any(not b.get("versions") for b in bufs) or max(b["versions"] for b in bufs) < 2:
            continue
        per_stage = sum(b["bytes"] / b["versions"] for b in bufs if b.get("scope") == scope)
        fixed = used - sum(b["bytes"] for b in bufs if b.get("scope") == scope)
        if per_stage > 0:
            return int((limit - fixed) // per_stage)
    points = sorted({s: onchip_use(r.get("plan") or {}) for r in recs if (s := _stage_of(r)) is not None and s >= 1}.items())
    points = [(s, used, limit) for s, (_, used, limit) in points if used and limit]  # num_stages 0 is no pipeline: not on the line
    if len(points) >= 2:
        (s1, u1, limit), (s2, u2, _) = points[0], points[-1]
        per_stage = (u2 - u1) / (s2 - s1)
        if per_stage > 0:
            return int((limit - (u1 - per_stage * s1)) // per_stage)
    return None


def fmt_basis(basis: str):
    return format_seconds if basis == "device" else (lambda c: f"{c:.0f} cyc")
