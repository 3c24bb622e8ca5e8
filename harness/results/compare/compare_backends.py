"""Across backends: each backend's stage curve, joined on the case id, against its own.

Contract: ``compare_backends(results)`` returns ``AcrossBackends``: per backend each config's
speedup over its own 1-stage (or serial) point and its best per problem, in the best metric it
has (device time, else modeled cycles, else compile time: no speedup), never combined.
``CompareError`` with fewer than two backends with items.
"""

from __future__ import annotations

from ...core.family import FamilyCatalog, StagePoint
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence
from ..files.store import Results, Testbed
from .comparison import CompareError
from .judgement import median_of
from .pairing import is_vendor, modeled_cycles_of, problem_of
from ..files.record_fields import Record


@dataclass(frozen=True)
class Metric:
    """What a backend's numbers are: ``device time`` (seconds, measured) or ``modeled
    cycles/core`` (cycles, a model).  Lower is better for both; they are never mixed."""

    name: str
    unit: str  # "s" | "cycles"
    measured: bool
    method: str


DEVICE_TIME = "device time"
MODELED_CYCLES = "modeled cycles/core"
COMPILE_TIME = "compile time"


@dataclass(frozen=True)
class AcrossPoint:
    backend: str
    case_id: str
    problem: str
    tile: str  # "128x256x64 t256" (+ cores / offset)
    loop_id: str  # "auto-s3" | "manual" | "serial"
    num_stages: int | None
    loop_form: str
    value: float  # in the backend's Metric unit
    speedup: float | None  # reference value / value; None without a reference point
    reference: str | None  # the case id speedup is relative to
    tflops: float | None = None


@dataclass(frozen=True)
class BackendStages:
    backend: str
    metric: Metric
    testbed: Testbed
    source: str  # the file it came from
    points: tuple[AcrossPoint, ...]
    best: tuple[AcrossPoint, ...]  # one per problem
    vendor: Mapping[str, float] = field(default_factory=dict)  # problem -> vendor median (device time only)

    def point(self, case_id: str) -> AcrossPoint | None:
        return next((p for p in self.points if p.case_id == case_id), None)


@dataclass(frozen=True)
class AcrossRow:
    case_id: str
    problem: str
    tile: str
    loop_id: str
    num_stages: int | None


@dataclass(frozen=True)
class AcrossBackends:
    backends: tuple[BackendStages, ...]
    rows: tuple[AcrossRow, ...]  # union of case ids, in problem / tile / loop order
    notes: tuple[str, ...] = ()


LOOP_ORDER = {"manual": 100, "serial": 101}


def _stage(rec: Record, catalog: FamilyCatalog) -> StagePoint:
    """Where a kernel record sits on the pipeline-depth axis, from its family (never its id)."""
    family = catalog.for_record(rec.raw)
    return family.stage_point(family.config_from_dict(rec.config))


def _backend_metric(records: list[Record]) -> tuple[Metric, list[tuple[dict, float]]] | None:
    kernels = [r for r in records if not is_vendor(r) and r.config]
    device = [r for r in kernels if r.kind == "device"]
    if device:
        methods = sorted({str(r.method) for r in device})
        return Metric(DEVICE_TIME, "s", True, ", ".join(methods)), [(r, median_of(r.samples_s)) for r in device]
    modeled = [(r, modeled_cycles_of(r)) for r in kernels if r.kind == "compile"]
    modeled = [(r, v) for r, v in modeled if v is not None]
    if modeled:
        unit = ((modeled[0][0].plan or {}).get("schedule_model") or {}).get("unit", "cycles (model)")
        return Metric(MODELED_CYCLES, "cycles", False, unit), modeled
    compiled = [(r, median_of(r.samples_s)) for r in kernels if r.kind == "compile" and r.samples_s]
    if compiled:
        methods = sorted({str(r.method or "cold lowering") for r, _ in compiled})
        return Metric(COMPILE_TIME, "s", True, ", ".join(methods) + "; the CPU cost of building, not kernel speed"), compiled
    return None


def _reference_case(points: list[tuple[dict, float]], catalog: FamilyCatalog) -> dict[tuple[str, str], tuple[str, float]]:
    """(problem, tile) -> (case id, value) of the 1-stage point, or the serial one."""
    refs: dict[tuple[str, str], tuple[str, float]] = {}
    for preferred in ("auto-s1", "serial"):
        for rec, value in points:
            stage = _stage(rec, catalog)
            group = (problem_of(rec), stage.tile)
            if group not in refs and stage.loop_id == preferred:
                refs[group] = (rec.case_id, value)
    return refs


def _stage_points(backend: str, points: list[tuple[dict, float]], catalog: FamilyCatalog) -> list[AcrossPoint]:
    refs = _reference_case(points, catalog)
    out = []
    for rec, value in points:
        config = rec.config
        stage = _stage(rec, catalog)
        group = (problem_of(rec), stage.tile)
        ref = refs.get(group)
        out.append(AcrossPoint(
            backend=backend, case_id=rec.case_id, problem=group[0], tile=group[1],
            loop_id=stage.loop_id, num_stages=stage.num_stages, loop_form=stage.loop_form,
            value=value,
            speedup=ref[1] / value if ref and value > 0 else None,
            reference=ref[0] if ref else None,
            tflops=rec.throughput.get("tflops") if rec.kind == "device" else None))
    return out


def _best(points: list[AcrossPoint]) -> tuple[AcrossPoint, ...]:
    best: dict[str, AcrossPoint] = {}
    for p in points:  # ties keep the earlier (shallower) config
        if p.problem not in best or p.value < best[p.problem].value:
            best[p.problem] = p
    return tuple(best.values())


def _sort_key(row: AcrossRow) -> tuple:
    stages = row.num_stages if row.loop_id.startswith("auto-") and row.num_stages is not None else LOOP_ORDER.get(row.loop_id, 200)
    return (row.problem, row.tile, stages, row.loop_id)


def compare_backends(results: Sequence[Results]) -> AcrossBackends:
    """Join every backend found in ``results`` on the case id.  Needs two backends with a
    kernel metric (device time, or a backend's modeled cycles)."""
    catalog = FamilyCatalog.from_entry_points()
    by_backend: dict[str, tuple[Results, list[Record]]] = {}
    for res in results:
        for rec in res.timed:
            if rec.backend in by_backend and by_backend[rec.backend][0] is not res:
                raise CompareError(
                    f"backend {rec.backend} appears in both {by_backend[rec.backend][0].name} and {res.name}; "
                    "--across-backends takes one run per backend"
                )
            by_backend.setdefault(rec.backend, (res, []))[1].append(rec)
    stages: list[BackendStages] = []
    notes: list[str] = []
    for backend, (res, records) in sorted(by_backend.items()):
        found = _backend_metric(records)
        if found is None:
            notes.append(f"{backend} ({res.name}): no timed kernel item (device, model or compile); left out")
            continue
        metric, values = found
        points = _stage_points(backend, values, catalog)
        if metric.name == COMPILE_TIME:  # the CPU cost of a build: shown per config, never a speedup or a "best" kernel
            points = [replace(p, speedup=None, reference=None) for p in points]
        vendor = {
            problem_of(r): median_of(r.samples_s) for r in records if is_vendor(r) and r.kind == "device"
        }
        best = () if metric.name == COMPILE_TIME else _best(points)
        stages.append(BackendStages(backend, metric, res.testbed(backend), res.path, tuple(points), best, vendor))
    if len(by_backend) < 2 or not stages:
        have = ", ".join(f"{s.backend} ({s.metric.name})" for s in stages) or "none"
        raise CompareError(
            f"--across-backends needs two backends in the files (one file of a two-backend run will do); got "
            f"{', '.join(sorted(by_backend)) or 'none'} with a metric: {have}"
            + (f" ({'; '.join(notes)})" if notes else "")
        )
    rows = {
        p.case_id: AcrossRow(p.case_id, p.problem, p.tile, p.loop_id, p.num_stages) for s in stages for p in s.points
    }
    return AcrossBackends(tuple(stages), tuple(sorted(rows.values(), key=_sort_key)), tuple(notes))
