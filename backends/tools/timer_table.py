"""The timer cross-check's pure parts: ncu's CSV split into calls per case, and the one table.

Contract: ``ncu_kernel_rows`` / ``ncu_clock_rows`` read ``ncu --csv``; ``calls_by_case(rows,
case_ids, count)`` splits the launcher's profile (a marker, one flush, the marker, then per case
``count`` x (flush, call) and the marker) into calls, raising ``ValueError`` on anything else;
``table`` / ``markdown`` render the ``CrosscheckRow``s; ``agreement`` says per timer whether it
lies within +-2 % of ncu none.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from ..gpu.flush_choice import split_at_flushes

METRIC = "gpu__time_duration.sum"
CLOCK_METRIC = "sm__cycles_elapsed.avg.per_second"  # cycles / duration: the SM clock during the kernel
TIMERS = ("events", "cupti", "graph")
NCU_MODES = ("none", "base")
TOLERANCE = 0.02
EXPECTED_METHOD = {"events": "cuda-event", "cupti": "cupti-kernel-timestamps", "graph": "cuda-graph"}  # records' method
_UNIT_MHZ = {"cycle/second": 1e-6, "cycle/msecond": 1e-3, "cycle/usecond": 1.0, "cycle/nsecond": 1e3,
             "hz": 1e-6, "khz": 1e-3, "mhz": 1.0, "ghz": 1e3}
UNIT_SECONDS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3,
                "msecond": 1e-3, "s": 1.0, "second": 1.0}


def _metric_rows(text: str, metric: str) -> dict[int, tuple[str, str, str]]:
    """ID -> (kernel name, unit, value) of every ``metric`` row of ncu's CSV."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    return {int(row["ID"]): (row["Kernel Name"], row["Metric Unit"], row["Metric Value"].replace(",", ""))
            for row in csv.DictReader(io.StringIO("\n".join(lines))) if row.get("Metric Name") == metric}


def ncu_kernel_rows(text: str) -> list[tuple[str, float]]:
    rows = []
    for kernel_id, (name, unit, value) in sorted(_metric_rows(text, METRIC).items()):
        if unit not in UNIT_SECONDS:
            raise ValueError(f"ncu reported {METRIC} in {unit!r}, a unit this reader does not know")
        rows.append((name, float(value) * UNIT_SECONDS[unit]))
    return rows


def ncu_clock_rows(text: str) -> list[float | None]:
    """One entry per ``ncu_kernel_rows`` row, in the same order: that kernel's SM clock in MHz."""
    clocks = _metric_rows(text, CLOCK_METRIC)
    out: list[float | None] = []
    for kernel_id in sorted(_metric_rows(text, METRIC)):
        _, unit, value = clocks.get(kernel_id, ("", "", ""))
        scale = _UNIT_MHZ.get(unit.lower())
        try:
            out.append(float(value) * scale if scale else None)
        except ValueError:  # ncu writes "n/a" where it has no value
            out.append(None)
    return out


def _segments(rows: Sequence[tuple[str, float]], case_ids: Sequence[str]) -> tuple[set[str], list[list[int]]]:
    """The flush's kernel names, and per case the indices into ``rows`` of its segment."""
    second = next((i for i in range(1, len(rows)) if rows[i][0] == rows[0][0]), None) if rows else None
    first = [name for name, _ in rows[1:second]] if second else []
    if second is None or second < 2 or len(set(first)) != len(first):  # one flush: its kernels, each once
        raise ValueError("ncu's first rows are not the launcher's marker, flush, marker: was the launch profiled from "
                         "cudaProfilerStart (ncu --profile-from-start off)?")
    marker = rows[0][0]
    segments: list[list[int]] = [[]]
    for index in range(second + 1, len(rows)):
        if rows[index][0] == marker:
            segments.append([])
        else:
            segments[-1].append(index)
    if segments[-1]:
        raise ValueError(f"{len(segments[-1])} kernel rows after the last marker: the launch did not end as written")
    segments.pop()
    if len(segments) != len(case_ids):
        raise ValueError(f"ncu profiled {len(segments)} case segments, the launcher ran {len(case_ids)} cases")
    return set(first), segments


def calls_by_case(rows: Sequence[tuple[str, float]], case_ids: Sequence[str], count: int) -> dict[str, list[float]]:
    """Per case, ``count`` call times: the kernels between one flush and the next.  The flush is what the launcher
    ran between its first two markers (one kernel or several in a row)."""
    flush_names, segments = _segments(rows, case_ids)
    flush = " + ".join(sorted(flush_names))
    out = {}
    for case_id, segment in zip(case_ids, segments):
        calls, before = split_at_flushes([rows[i] for i in segment], flush_names)
        if before is not None:
            raise ValueError(f"{case_id}: a kernel ({before}) before the first flush")
        if len(calls) != count or any(c <= 0 for c in calls):
            raise ValueError(f"{case_id}: {len(calls)} flush-separated calls with kernels, expected {count}; its call "
                             f"may launch the flush's kernel ({flush}) itself")
        out[case_id] = calls
    return out


def clock_by_case(rows: Sequence[tuple[str, float]], clocks: Sequence[float | None],
                  case_ids: Sequence[str]) -> dict[str, float]:
    """Per case, the median SM clock (MHz) ncu read over the case's own kernels; a case with no clock reading is
    left out."""
    flush_names, segments = _segments(rows, case_ids)
    out = {}
    for case_id, segment in zip(case_ids, segments):
        read = [clocks[i] for i in segment if rows[i][0] not in flush_names and clocks[i] is not None]
        if read:
            out[case_id] = statistics.median(read)
    return out


@dataclass
class CrosscheckRow:
    case_id: str
    harness_s: dict[str, float] = field(default_factory=dict)  # timer -> median seconds
    status: dict[str, str] = field(default_factory=dict)  # timer -> clean / DRIFT / CAPPED / why not timed
    ncu_s: dict[str, float] = field(default_factory=dict)  # clock-control mode -> median seconds
    harness_mhz: dict[str, float] = field(default_factory=dict)  # timer -> median NVML SM clock after its kept batches
    ncu_mhz: dict[str, float] = field(default_factory=dict)  # clock-control mode -> median SM clock ncu read

    @classmethod
    def from_results(cls, case_id: str, harness: Mapping[str, Mapping[str, object]],
                     ncu: Mapping[str, Sequence[float]], ncu_clock: Mapping[str, float] | None = None) -> "CrosscheckRow":
        row = cls(case_id)
        for timer, result in harness.items():
            if result.get("median_s") is not None:
                row.harness_s[timer] = float(result["median_s"])
            if result.get("sm_clock_mhz"):
                row.harness_mhz[timer] = float(result["sm_clock_mhz"])
            row.status[timer] = str(result.get("status", "?"))
            method = result.get("method")
            if method and EXPECTED_METHOD.get(timer, method) != method:  # the timer fell back (its notes say why)
                row.status[timer] += f" as {method}"
        for mode, calls in ncu.items():
            if calls:
                row.ncu_s[mode] = statistics.median(calls)
        row.ncu_mhz = {mode: float(mhz) for mode, mhz in (ncu_clock or {}).items() if mhz}
        return row

    def ratio(self, timer: str) -> float:
        """``timer`` / ncu none (``base`` for ncu base / none); nan when either is missing."""
        value = self.ncu_s.get("base") if timer == "base" else self.harness_s.get(timer)
        reference = self.ncu_s.get("none")
        return value / reference if value and reference else math.nan


def _us(value: float | None) -> str:
    return f"{value * 1e6:.2f}" if value else "-"


def _ratio(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.4f}"


HEADER = ["case", *(f"{t} us" for t in TIMERS), *(f"ncu {m} us" for m in NCU_MODES),
          *(f"{t}/ncu" for t in TIMERS), "base/none", "SM MHz nvml/ncu", "status e/c/g"]


def _mhz(row: CrosscheckRow) -> str:
    return "/".join(f"{mhz:.0f}" if mhz else "-" for mhz in (row.harness_mhz.get("cupti"), row.ncu_mhz.get("none")))


def _cells(row: CrosscheckRow) -> list[str]:
    return [row.case_id, *(_us(row.harness_s.get(t)) for t in TIMERS), *(_us(row.ncu_s.get(m)) for m in NCU_MODES),
            *(_ratio(row.ratio(t)) for t in TIMERS), _ratio(row.ratio("base")), _mhz(row),
            "/".join(row.status.get(t, "-") for t in TIMERS)]


def table(rows: Sequence[CrosscheckRow]) -> str:
    grid = [HEADER, *(_cells(r) for r in rows)]
    widths = [max(len(line[i]) for line in grid) for i in range(len(HEADER))]
    fmt = lambda line: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))  # noqa: E731
    return "\n".join([fmt(HEADER), "  ".join("-" * w for w in widths), *(fmt(_cells(r)) for r in rows)])


def markdown(rows: Sequence[CrosscheckRow]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return "\n".join([*lines, *("| " + " | ".join(_cells(r)) + " |" for r in rows)])


def agreement(rows: Sequence[CrosscheckRow]) -> list[str]:
    out = []
    for timer in (*TIMERS, "base"):
        ratios = [r.ratio(timer) for r in rows if not math.isnan(r.ratio(timer))]
        label = "ncu base" if timer == "base" else timer
        if not ratios:
            out.append(f"{label} / ncu none: no pair measured")
            continue
        lo, hi = min(ratios), max(ratios)
        out.append(f"{label} / ncu none over {len(ratios)} cases: {lo:.4f} .. {hi:.4f} ({within(lo, hi)})")
    return out


def within(lo: float, hi: float) -> str:
    """Whether the ratio range ``lo .. hi`` lies inside +-TOLERANCE, or by how much it misses."""
    miss = max(0.0, (1 - TOLERANCE) - lo, hi - (1 + TOLERANCE))
    return f"inside +-{TOLERANCE:.0%}" if miss == 0 else f"misses +-{TOLERANCE:.0%} by {miss:.2%}"
