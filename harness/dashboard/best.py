"""The dashboard's headline table: the best config per problem, from clean runs only.  Data only.

Contract: ``best_table(conn, all_series=None)``: a ``BestTable`` of the fastest kernel per
testbed and problem among clean runs (``history.clean_runs``), with its % of peak (or bandwidth)
and the same run's vendor item, plus the runs left out and why.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from ..results.history.clean_runs import RunQuality, run_quality
from ..results.history.query import Point, Series, TestbedRow, series


@dataclass(frozen=True)
class BestRow:
    testbed: TestbedRow
    problem: str
    case_id: str
    median_ms: float
    tflops: float | None
    pct_of_peak: str
    vendor_ms: float | None  # the vendor item of the same run (None: that run had none)
    vendor_pct: str
    run_label: str
    runs_considered: int  # clean runs that measured this problem on this testbed


@dataclass(frozen=True)
class BestTable:
    rows: tuple[BestRow, ...]
    clean_runs: int
    left_out: tuple[RunQuality, ...]  # runs with device items that are not clean, with reasons


def pct_text(point: Point) -> str:
    rec = point.typed
    roof, rate = rec.roofline or {}, rec.throughput
    gbps, bandwidth = rate.get("gbps_compulsory"), roof.get("bandwidth_tbps")
    if (roof.get("bound") == "memory" and isinstance(gbps, (int, float)) and isinstance(bandwidth, (int, float))
            and bandwidth > 0):
        return f"{gbps / (bandwidth * 10):.1f}% of bandwidth ({gbps:,.0f} GB/s)"  # memory-bound: bytes, not FLOPs
    if point.pct_of_peak is not None:
        return f"{point.pct_of_peak:.1f}%"
    return "peak unknown" if roof.get("status") == "peak unknown" else "not recorded"


def best_table(conn: sqlite3.Connection, all_series: Sequence[Series] | None = None) -> BestTable:
    quality = run_quality(conn)
    kernels: dict[tuple[int, str], list[tuple[Series, Point]]] = defaultdict(list)
    vendors: dict[tuple[int, str, int], list[Point]] = defaultdict(list)  # (testbed, problem, run)
    device_runs: set[int] = set()
    for s in (series(conn, kind="device") if all_series is None else [s for s in all_series if s.kind == "device"]):
        for p in s.timed:
            device_runs.add(p.run_id)
            if not quality[p.run_id].clean:
                continue
            if s.is_vendor:
                vendors[(s.testbed.testbed_id, s.problem, p.run_id)].append(p)
            else:
                kernels[(s.testbed.testbed_id, s.problem)].append((s, p))
    rows = []
    for (bed_id, problem), items in sorted(kernels.items(), key=lambda kv: kv[0]):
        s, p = min(items, key=lambda sp: (sp[1].median_s, sp[1].run_id))
        same_run = vendors.get((bed_id, problem, p.run_id), [])
        vendor = min(same_run, key=lambda v: v.median_s) if same_run else None
        rows.append(BestRow(s.testbed, problem, s.case_id, p.median_s * 1e3, p.tflops, pct_text(p),
                            vendor.median_s * 1e3 if vendor else None, pct_text(vendor) if vendor else "", p.label,
                            len({q.run_id for _, q in items})))
    left_out = tuple(q for rid, q in sorted(quality.items()) if rid in device_runs and not q.clean)
    clean = sum(1 for rid in device_runs if quality[rid].clean)
    return BestTable(tuple(rows), clean, left_out)
