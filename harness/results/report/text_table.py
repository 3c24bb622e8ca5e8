"""The one table renderer of ``tlbench report``, ``compare`` and ``history show``.

Contract (pure layout): ``render(columns, groups, width)`` returns ``(text, style)`` lines: the
header, then per ``Group`` its heading and aligned ``TextRow``s, a row's ``note`` on its line when
it fits else on one indented line; widths shared by all groups.  ``natural_key(text)`` sorts
numbers as numbers; ``split_id(case_id, problem) -> (problem, config)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

GAP = "  "
NOTE_INDENT = "      "


@dataclass(frozen=True)
class Column:
    name: str
    right: bool = False  # numbers: right-aligned


@dataclass(frozen=True)
class TextRow:
    cells: tuple[str, ...]
    note: str = ""
    style: str | None = None


@dataclass(frozen=True)
class Group:
    heading: str
    rows: tuple[TextRow, ...] = field(default_factory=tuple)
    style: str | None = "bold"


Line = tuple[str, "str | None"]


def natural_key(text: str) -> tuple:
    """Sort key with numbers as numbers: bm64 before bm128, s2 before s10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text))


def split_id(case_id: str, problem: str | None) -> tuple[str, str]:
    if problem and case_id.startswith(problem + "-"):
        return problem, case_id[len(problem) + 1:]
    if problem and case_id == problem:
        return problem, "-"
    return problem or "", case_id


def _widths(columns: Sequence[Column], groups: Sequence[Group]) -> list[int]:
    widths = [len(c.name) for c in columns]
    for group in groups:
        for row in group.rows:
            for i, cell in enumerate(row.cells):
                widths[i] = max(widths[i], len(cell))
    return widths


def _cells(cells: Sequence[str], columns: Sequence[Column], widths: Sequence[int]) -> str:
    out = []
    for cell, col, w in zip(cells, columns, widths):
        out.append(cell.rjust(w) if col.right else cell.ljust(w))
    return GAP.join(out).rstrip()


def render(columns: Sequence[Column], groups: Sequence[Group], width: int, note_header: str = "") -> list[Line]:
    groups = [g for g in groups if g.rows]
    if not groups:
        return []
    widths = _widths(columns, groups)
    span = sum(widths) + len(GAP) * (len(widths) - 1)
    header = "  " + _cells([c.name for c in columns], columns, widths).ljust(span)
    lines: list[Line] = [((header + GAP + note_header).rstrip(), "bold"), ("  " + GAP.join("-" * w for w in widths), None)]
    for group in groups:
        lines.append((group.heading, group.style))
        for row in group.rows:
            cells = "  " + _cells(row.cells, columns, widths)
            if not row.note:
                lines.append((cells, row.style))
            elif len(header) + len(GAP) + len(row.note) <= width:
                lines.append(("  " + _cells(row.cells, columns, widths).ljust(span) + GAP + row.note, row.style))
            else:
                lines.append((cells, row.style))
                lines.append((NOTE_INDENT + row.note, row.style))
    return lines


def plain(lines: Sequence[Line]) -> list[str]:
    return [text for text, _ in lines]
