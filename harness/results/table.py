"""Readable tables of benchmark results, for the terminal and for ``tlbench report``.

Contract: pure formatting.  The plan cell is the backend's own one-line summary
(``BackendTraits.plan_summary``, looked up through ``traits_of``); ``rows_from_records`` /
``rows_from_outcomes`` produce ``Row``s; ``format_table`` renders them as aligned text.
Device and compile times are printed as times (device throughput with its % of peak, or
"peak unknown", when the record has it); a backend's modeled numbers are its own
summary's, labelled as a model, and never mixed into a time column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from tlbench.harness.results.error_text import failure_line
from tlbench.harness.results.roofline import format_pct


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


TraitsOf = Callable[[str], Any]  # backend name -> its BackendTraits


def measurement_status(rec: dict[str, Any]) -> str:
    """``ok`` for a clean device measurement, else ``DRIFT`` / ``CAPPED`` (never shown as clean)."""
    status = (rec.get("summary") or {}).get("status") or "clean"
    return "ok" if status == "clean" else status


def plan_cell(plan: dict[str, Any] | None, backend: str, traits_of: TraitsOf) -> str:
    return traits_of(backend).plan_summary(plan) if plan else "-"


def _row_from_record(rec: dict[str, Any], traits_of: TraitsOf) -> Row:
    status = rec.get("status", "ok")
    summary = rec.get("summary") or {}
    tput = (rec.get("throughput") or {}).get("tflops")
    note = status
    if status == "failed":
        note = f"FAILED {failure_line(rec)}"
    elif status == "skipped":
        note = f"skipped: {rec.get('reason')}"
    elif rec.get("kind") == "device":
        crit = ((rec.get("measurement") or {}).get("criterion") or {}).get("name")
        note = f"{measurement_status(rec)} ({rec.get('method')}, n={summary.get('n')}{', ' + crit if crit else ''})"
    else:
        note = f"ok (n={summary.get('n')})"
    return Row(
        kind=rec.get("kind", "?"),
        backend=rec.get("backend", "?"),
        case_id=rec.get("case_id", "?"),
        median=format_seconds(summary.get("median")),
        throughput=(f"{tput:.1f} TFLOP/s" + (f" ({format_pct(rec)})" if format_pct(rec) else "")) if tput else "-",
        plan=plan_cell(rec.get("plan"), rec.get("backend", "?"), traits_of),
        status=note,
    )


def rows_from_records(records: Iterable[dict[str, Any]], traits_of: TraitsOf) -> list[Row]:
    return [_row_from_record(r, traits_of) for r in records]


def rows_from_outcomes(pairs: Iterable[tuple[Any, Any]], traits_of: TraitsOf) -> list[Row]:
    rows = []
    for item, outcome in pairs:
        if outcome.status == "timed":
            rows.append(_row_from_record(outcome.record, traits_of))
        elif outcome.status == "failed":
            rec = {**item.describe(), "status": "failed", "stage": outcome.stage, "error": outcome.reason,
                   "worker": getattr(outcome, "worker", None)}
            rows.append(_row_from_record({**rec, "plan": outcome.plan.to_dict() if outcome.plan else None}, traits_of))
        else:
            rows.append(_row_from_record({**item.describe(), "status": "skipped", "reason": outcome.reason}, traits_of))
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

