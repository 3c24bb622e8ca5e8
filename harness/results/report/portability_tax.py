"""The portability tax: the one body against the target-specific kernel doing the same work.

Contract (pure): ``tax_lines(groups)``: one line per problem where the run timed a
``one_body: true`` config and a ``false`` one (in one block, or in two blocks of a backend whose
fastest vendor items do the same FLOPs): each side's fastest config and vendor ratio, and the
one body's time over the target-specific kernel's, minus 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ...core.cases import PORTABLE_KEY
from ..files.record_fields import Record
from .table import format_seconds


@dataclass
class TaxGroup:
    backend: str
    problem: str
    timed: list[Record] = field(default_factory=list)
    vendor: list[Record] = field(default_factory=list)


def _median(record: Record) -> float | None:
    value = record.summary.get("median")
    return value if isinstance(value, (int, float)) and value > 0 else None


def _fastest(records: Sequence[Record]) -> Record | None:
    timed = [r for r in records if _median(r)]
    return min(timed, key=lambda r: (_median(r), r.case_id)) if timed else None


def _side(group: TaxGroup, one_body: bool) -> Record | None:
    return _fastest([r for r in group.timed if r.raw.get(PORTABLE_KEY) is one_body])


def _work(group: TaxGroup) -> float | None:
    vendor = _fastest(group.vendor)
    tflops = vendor.throughput.get("tflops") if vendor is not None else None
    return tflops * _median(vendor) if isinstance(tflops, (int, float)) and tflops > 0 else None


def _words(record: Record, group: TaxGroup) -> str:
    vendor = _fastest(group.vendor)
    config = record.case_id.removeprefix(group.problem + "-")
    ratio = f", {_median(vendor) / _median(record):.3f}x its vendor item" if vendor is not None else ""
    return f"{config} {format_seconds(_median(record))}{ratio}"


def _line(backend: str, problem: str, body: tuple[Record, TaxGroup], hand: tuple[Record, TaxGroup]) -> str:
    paid = _median(body[0]) / _median(hand[0]) - 1
    verdict = f"the one body pays {paid:+.1%}" if paid > 0 else f"no tax: the one body is {-paid:.1%} faster"
    return (f"portability tax {backend} · {problem}: one body {_words(*body)}; target-specific {_words(*hand)}; "
            f"{verdict}")


def tax_lines(groups: Sequence[TaxGroup]) -> list[str]:
    lines: list[str] = []
    bodies_only: list[tuple[Record, TaxGroup]] = []
    hands_only: list[tuple[Record, TaxGroup]] = []
    for group in groups:
        body, hand = _side(group, True), _side(group, False)
        if body is not None and hand is not None:
            lines.append(_line(group.backend, group.problem, (body, group), (hand, group)))
        elif body is not None:
            bodies_only.append((body, group))
        elif hand is not None:
            hands_only.append((hand, group))
    for body in bodies_only:
        work = _work(body[1])
        twins = [h for h in hands_only if h[1].backend == body[1].backend and work is not None
                 and (other := _work(h[1])) is not None
                 and abs(other - work) <= 1e-6 * max(other, work)]
        if len(twins) == 1:
            lines.append(_line(body[1].backend, body[1].problem, body, twins[0]))
    return lines
