"""One line for a failed item's error text, and the summary's failure lines.

Contract: ``headline(text, limit)``: the ``Type: message`` line (a traceback's last one), else
the first non-empty line, cut to ``limit``.  ``failure_line(record, limit)``: ``[stage]:
headline`` plus the worker's restarts.  ``failure_lines(failed)``: one line per distinct
failure (the first ``MAX_FAILURE_LINES``, counted), then where the tracebacks are.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Fault|Exit|Interrupt)\b: *(?P<words>.*)$")
_TRACEBACK = "Traceback (most recent call last)"
MAX_FAILURE_LINES = 5
TRACEBACK_POINTER = ("tracebacks: pytest -v (or --tb=long) prints each; the results file (tlbench.failed[].traceback) "
                     "and the journal keep them")


def _shorten(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[: limit - 3] + "..."


def headline(text: Any, limit: int = 160) -> str:
    lines = [ln.strip() for ln in str(text or "").splitlines() if ln.strip()]
    if not lines:
        return ""
    first = _EXCEPTION_LINE.match(lines[0])
    if first is not None and first["words"] and not first["words"].startswith(_TRACEBACK):
        return _shorten(lines[0], limit)
    if first is not None or any(ln.startswith(_TRACEBACK) for ln in lines):
        named = [ln for ln in lines[1:] if _EXCEPTION_LINE.match(ln)]
        return _shorten(named[-1] if named else lines[-1], limit)
    return _shorten(lines[0], limit)


def failure_line(record: Mapping[str, Any], limit: int = 160) -> str:
    """``[stage]: headline``, with the worker restart count when the fault restarted it."""
    line = f"[{record.get('stage')}]: {headline(record.get('error') or record.get('reason'), limit)}"
    worker = record.get("worker") or {}
    if worker.get("restarted"):
        line += f" (worker restarted; {worker.get('restarts')} restarts so far)"
    return line


def failure_lines(failed: list[Mapping[str, Any]]) -> list[str]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in failed:
        groups.setdefault(failure_line(record), []).append(record)
    lines = []
    for words, records in list(groups.items())[:MAX_FAILURE_LINES]:
        first = records[0]
        who = f"{first.get('kind')} {first.get('case_id')}" + (f" and {len(records) - 1} more item(s)" if len(records) > 1 else "")
        lines.append(f"  FAILED {who}: {words}")
    shown = sum(len(r) for r in list(groups.values())[:MAX_FAILURE_LINES])
    if len(failed) > shown:
        lines.append(f"  ... {len(failed) - shown} more failed (see the table)")
    if any(r.get("traceback") for r in failed):
        lines.append(f"  {TRACEBACK_POINTER}")
    return lines
