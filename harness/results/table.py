"""Readable tables of benchmark results, for the terminal and for ``tlbench report``.

Contract: pure formatting.  ``plan_summary(plan)`` condenses a plan dict into one cell;
``rows_from_records`` / ``rows_from_outcomes`` produce ``Row``s; ``format_table`` renders
them as aligned text.  Device and compile times are printed as times; Ascend schedule
numbers are printed as ``cyc (model)`` and never mixed into a time column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence


@dataclass(frozen=True)
class Row:
    kind: str
    backend: str
    case_id: str
    median: str
    throughput: str
    plan: str
    status: str


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.2f} us"


def plan_summary(plan: dict[str, Any] | None) -> str:
    if not plan:
        return "-"
    pipe = plan.get("pipeline", {})
    versions = "/".join(str(b["versions"]) for b in plan.get("buffers", []) if b.get("scope") in ("shared.dyn", "shared.l1"))
    if plan.get("backend") == "ascend":
        model = plan.get("schedule_model") or {}
        parts = [f"II {pipe.get('loop_ii_cycles_model')} cyc", f"v{versions}", f"{model.get('modeled_cycles_per_core')} cyc/core"]
        overlap = model.get("core_pipelining") or {}
        if overlap.get("applicable"):
            parts.append(f"C/V overlap {overlap['overlap_cycles']} cyc")
        return " ".join(parts) + " (model)"
    kind = pipe.get("kind", "?")
    if kind == "software-pipeline":
        head = f"sw {pipe.get('stage')}/{pipe.get('order')}"
    elif kind == "warp-specialized":
        head = "warp-spec"
    else:
        head = "no pipeline"
    smem = (plan.get("bytes_per_scope") or {}).get("shared.dyn")
    return f"{head} v{versions} smem {smem} t{plan.get('threads')}"


def _row_from_record(rec: dict[str, Any]) -> Row:
    status = rec.get("status", "ok")
    summary = rec.get("summary") or {}
    tput = (rec.get("throughput") or {}).get("tflops")
    note = status
    if status == "failed":
        note = f"FAILED [{rec.get('stage')}]: {_first_line(rec.get('error', ''))}"
    elif status == "skipped":
        note = f"skipped: {rec.get('reason')}"
    elif rec.get("kind") == "device":
        note = f"ok ({rec.get('method')}, n={summary.get('n')})"
    else:
        note = f"ok (n={summary.get('n')})"
    return Row(
        kind=rec.get("kind", "?"),
        backend=rec.get("backend", "?"),
        case_id=rec.get("case_id", "?"),
        median=format_seconds(summary.get("median")),
        throughput=f"{tput:.1f} TFLOP/s" if tput else "-",
        plan=plan_summary(rec.get("plan")),
        status=note,
    )


def _first_line(text: str, limit: int = 160) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    line = lines[-1] if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def rows_from_records(records: Iterable[dict[str, Any]]) -> list[Row]:
    return [_row_from_record(r) for r in records]


def rows_from_outcomes(pairs: Iterable[tuple[Any, Any]]) -> list[Row]:
    rows = []
    for item, outcome in pairs:
        if outcome.status == "timed":
            rows.append(_row_from_record(outcome.record))
        elif outcome.status == "failed":
            rec = {**item.describe(), "status": "failed", "stage": outcome.stage, "error": outcome.reason}
            rows.append(_row_from_record({**rec, "plan": outcome.plan.to_dict() if outcome.plan else None}))
        else:
            rows.append(_row_from_record({**item.describe(), "status": "skipped", "reason": outcome.reason}))
    return rows


HEADER = Row("kind", "backend", "case", "median", "throughput", "plan", "status")


def format_table(rows: Sequence[Row]) -> list[str]:
    if not rows:
        return ["(no tlbench items)"]
    table = [HEADER, *rows]
    fields = list(Row.__dataclass_fields__)
    widths = {f: max(len(getattr(r, f)) for r in table) for f in fields[:-1]}
    lines = []
    for i, r in enumerate(table):
        lines.append("  ".join(getattr(r, f).ljust(widths[f]) for f in fields[:-1]) + "  " + r.status)
        if i == 0:
            lines.append("  ".join("-" * widths[f] for f in fields[:-1]) + "  " + "-" * 6)
    return lines


def render_outcomes(pairs: Iterable[tuple[Any, Any]]) -> list[str]:
    return format_table(rows_from_outcomes(pairs))
