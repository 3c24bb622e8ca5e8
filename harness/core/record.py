"""What one benchmark item writes into pytest-benchmark's JSON, and how to read it back.

Contract: ``item_record(...)`` builds an item's ``extra_info["tlbench"]``: identity, plan, budget,
method, raw samples (seconds) and summary, and for a device item the check, throughput and input
dtypes; ``stats`` hold the same samples, so pytest-benchmark's compare sees device (or compile)
time.  ``failure_record`` / ``skip_record`` go under the JSON's top-level ``tlbench`` key, since
pytest-benchmark drops such items; ``records_of`` reads the timed ones back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .space import REJECTION_KINDS
from .stats import summarize
from .cases import Case, CheckResult, Plan, VendorCase
from .kernel_traits import takes_keyword

SCHEMA_VERSION = 1
EXTRA_KEY = "tlbench"


@dataclass(frozen=True)
class BenchItem:
    """One parametrized test: a case, on a backend, measured as ``compile`` or ``device``."""

    backend: str
    kind: str  # "compile" | "device"
    case: Case | VendorCase
    skip_on: tuple[str, ...] = REJECTION_KINDS
    copy: int | None = None  # one copy of a vendor item per GPU of a multi-GPU run (gpu_split)

    @property
    def item_id(self) -> str:
        suffix = f"-gpu{self.copy}" if self.copy is not None else ""
        return f"{self.kind}-{self.backend}-{self.case.case_id}{suffix}"

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "kind": self.kind, "case_id": self.case.case_id, **self.case.to_dict()}


def _work(method: Any, problem: Any, dialect: str | None) -> float:
    """A family's ``flops`` / ``bytes_moved`` of a problem, told the dialect where it takes one."""
    return method(problem, dialect=dialect) if dialect is not None and takes_keyword(method, "dialect") else method(problem)


def _throughput(case: Case | VendorCase, median_s: float, dialect: str | None = None) -> dict[str, float]:
    if median_s <= 0:
        return {}
    family = case.problem.family
    return {
        "tflops": _work(family.flops, case.problem, dialect) / median_s / 1e12,
        "gbps_compulsory": _work(family.bytes_moved, case.problem, dialect) / median_s / 1e9}


def item_record(
    item: BenchItem, samples_s: tuple[float, ...], method: str, plan: Plan | None = None,
    budget: dict[str, Any] | None = None, check: CheckResult | None = None, l2_flush_bytes: int | None = None,
    notes: list[str] | None = None, measurement: dict[str, Any] | None = None,
    compile_phases_s: dict[str, float] | None = None, seed: int | None = None, dialect: str | None = None,
    input_dtypes: tuple[str, ...] | None = None) -> dict[str, Any]:
    summary = summarize(samples_s)
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, **item.describe(), "unit": "seconds", "method": method,
        "samples_s": list(samples_s), "summary": summary.to_dict(),
        "plan": plan.to_dict() if plan is not None else None, "budget": budget}
    if item.kind == "device":
        record.update(throughput=_throughput(item.case, summary.median, dialect),
                      check=check.to_dict() if check is not None else None, l2_flush_bytes=l2_flush_bytes,
                      notes=list(notes or []), measurement=measurement, input_seed=seed,
                      input_dtypes=list(input_dtypes) if input_dtypes is not None else None)
    else:
        record["compile_phases_s"] = compile_phases_s or {}
    return plain_data(record)


def plain_data(value: Any) -> Any:
    """A copy made of plain JSON types only.  A record lives in pytest-benchmark's fixture until interpreter exit; a
    backend object left in it (tvm-ffi's ``String`` subclasses ``str``) would be released during the final garbage
    collection, after its runtime is gone."""
    return json.loads(json.dumps(value, default=str))


def failure_record(
    item: BenchItem, nodeid: str, error: str, stage: str, plan: Plan | None = None, worker: dict[str, Any] | None = None,
    traceback: str = "") -> dict[str, Any]:
    """``worker``: the device worker process's account (pid, restarts so far, whether this item's fault or timeout
    restarted it), when the item ran in one.  ``traceback``: the full traceback of the exception that failed the
    item (the user's code or the failing compiler pass, read where it was raised), kept as ``traceback`` where there
    is one."""
    extra = {"worker": worker} if worker else {}
    if traceback:
        extra["traceback"] = traceback
    return {
        "schema_version": SCHEMA_VERSION, **item.describe(), "nodeid": nodeid, "status": "failed", "stage": stage,
        "error": error, "plan": plain_data(plan.to_dict()) if plan is not None else None, **extra}


def skip_record(item: BenchItem, nodeid: str, reason: str) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, **item.describe(), "nodeid": nodeid, "status": "skipped", "reason": reason}


def records_of(bench_json: dict[str, Any]) -> list[dict[str, Any]]:
    """The tlbench records of a pytest-benchmark JSON document (timed items only)."""
    return [{**rec, "name": bench.get("name"), "fullname": bench.get("fullname")}
            for bench in bench_json.get("benchmarks", [])
            if (rec := (bench.get("extra_info") or {}).get(EXTRA_KEY)) is not None]
