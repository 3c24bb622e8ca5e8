"""Field types of a results file that readers and judges use, checked in one place; typed items.

Contract: ``check_document(path, doc)``, ``check_record(path, label, rec)`` and
``check_outcome(path, where, rec, text_keys)`` raise ``ResultsError`` (one line: file, item,
field, what it holds, what it should hold) for every field harness/results and harness/analysis
read; an absent field is fine where readers treat it as absent.  ``Record.of(raw)`` (a timed
item) and ``Outcome.of(status, raw)`` (a failed or skipped one) are a checked item's typed
fields on a shared ``Item`` base, with ``raw`` (the dict as written, with ``problem_id``) for
writers that re-emit it and readers of fields not typed here; store.py builds them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

KINDS = ("compile", "device")


class ResultsError(ValueError):
    """A results file cannot be used; ``str()`` is one line that names the file."""


def _holds(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fail(path: Any, where: str, field: str, value: Any, should: str) -> None:
    raise ResultsError(f"{path}: {where}: field {field} is {_holds(value)}, it should be {should}; "
                     "re-run the suite or repair the file")


def _optional(rec: Mapping[str, Any], key: str, types: tuple[type, ...], path: Any, where: str, should: str) -> Any:
    value = rec.get(key)
    if value is not None and not isinstance(value, types):
        _fail(path, where, key, value, should)
    return value


def _number_list(rec: Mapping[str, Any], key: str, path: Any, where: str, positive: bool = False) -> None:
    value = rec.get(key)
    if value is None:
        return
    should = f"a non-empty list of finite {'positive' if positive else 'non-negative'} numbers"
    if not isinstance(value, list) or not value:
        _fail(path, where, key, value, should)
    for i, v in enumerate(value):
        if not _number(v) or v < 0 or (positive and v == 0):
            _fail(path, where, f"{key}[{i}]", v, should)


def check_document(path: Any, doc: Mapping[str, Any]) -> None:
    """The containers: benchmark entries, their extra_info, the top-level and machine tlbench objects."""
    for index, bench in enumerate(doc["benchmarks"]):
        if not isinstance(bench, dict):
            _fail(path, f"benchmarks[{index}]", "(the entry)", bench, "a pytest-benchmark entry (an object)")
        label = bench.get("name") if isinstance(bench.get("name"), str) else f"benchmarks[{index}]"
        extra = bench.get("extra_info")
        if extra is not None and not isinstance(extra, dict):
            _fail(path, f"benchmark {label}", "extra_info", extra, "an object")
        if extra and "tlbench" in extra and not isinstance(extra["tlbench"], dict):
            _fail(path, f"benchmark {label}", "extra_info.tlbench", extra["tlbench"], "a tlbench record (an object)")
        for key in ("name", "fullname"):
            _optional(bench, key, (str,), path, f"benchmarks[{index}]", "a string")
    top = doc.get("tlbench")
    if top is not None and not isinstance(top, dict):
        _fail(path, "the top level", "tlbench", top, "an object")
    for key in ("failed", "skipped", "backends", "kinds"):
        if top:
            _optional(top, key, (list,), path, "the top-level tlbench object", "a list")
    if top and any(not isinstance(b, str) for b in top.get("backends") or ()):
        _fail(path, "the top-level tlbench object", "backends", top["backends"], "a list of backend names")
    if top:
        _optional(top, "partial", (dict,), path, "the top-level tlbench object", "an object or null")
    machine = doc["machine_info"].get("tlbench")
    if machine is not None and not isinstance(machine, dict):
        _fail(path, "machine_info", "tlbench", machine, "an object")
    if machine:
        backends = _optional(machine, "backends", (dict,), path, "machine_info.tlbench", "an object of backend name -> device info")
        for name, info in (backends or {}).items():
            if not isinstance(info, dict):
                _fail(path, "machine_info.tlbench.backends", name, info, "an object (the backend's device info)")


def _ids(path: Any, where: str, rec: Mapping[str, Any]) -> None:
    for key in ("backend", "case_id"):
        value = rec.get(key)
        if not isinstance(value, str) or not value:
            _fail(path, where, key, value, "a non-empty string")
    if rec.get("kind") not in KINDS:
        _fail(path, where, "kind", rec.get("kind"), " or ".join(repr(k) for k in KINDS))
    for key in ("label", "family", "kernel", "nodeid", "device_uuid"):
        _optional(rec, key, (str,), path, where, "a string")
    _optional(rec, "config", (dict,), path, where, "an object (null for a vendor item)")
    if "problem" in rec and not isinstance(rec["problem"], dict):
        _fail(path, where, "problem", rec["problem"], "an object")


def check_record(path: Any, label: str, rec: Mapping[str, Any]) -> None:
    """A timed record: ids, samples and every section a reader or judge reads."""
    where = f"benchmark {label}"
    _ids(path, where, rec)
    # samples_s: checked by store.py first; a probe list of another length is read as no probe
    _number_list(rec, "cpu_samples_s", path, where)
    _number_list(rec, "machine_probe_cpu_s", path, where, positive=True)
    rounds = rec.get("compile_round_robin")
    if rounds is not None and (not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0):
        _fail(path, where, "compile_round_robin", rounds, "a non-negative integer")
    summary = _optional(rec, "summary", (dict,), path, where, "an object")
    if summary:
        for key in ("median", "min", "max", "mean"):
            if summary.get(key) is not None and not _number(summary[key]):
                _fail(path, where, f"summary.{key}", summary[key], "a finite number")
        _optional(summary, "status", (str,), path, where, "a string")
    plan = _optional(rec, "plan", (dict,), path, where, "an object or null")
    if plan:
        for key in ("schedule_model", "pipeline"):
            _optional(plan, key, (dict,), path, where, "an object or null")
        _optional(plan, "buffers", (list,), path, where, "a list")
        cycles = (plan.get("schedule_model") or {}).get("modeled_cycles_per_core")
        if cycles is not None and not _number(cycles):
            _fail(path, where, "plan.schedule_model.modeled_cycles_per_core", cycles, "a finite number")
    measurement = _optional(rec, "measurement", (dict,), path, where, "an object or null")
    if measurement:
        m_where = f"{where} measurement"
        _number_list(measurement, "round_medians_s", path, m_where, positive=True)
        _number_list(measurement, "vs_vendor_rounds", path, m_where, positive=True)
        drift = _optional(measurement, "drift", (dict,), path, m_where, "an object or null")
        if drift and drift.get("relative") is not None and not _number(drift["relative"]):
            _fail(path, m_where, "drift.relative", drift["relative"], "a finite number")
        threshold = measurement.get("drift_threshold")
        if threshold is not None and (not _number(threshold) or threshold <= 0):
            _fail(path, m_where, "drift_threshold", threshold, "a positive number")
        _optional(measurement, "criterion", (dict,), path, m_where, "an object or null")
        _optional(measurement, "status", (str,), path, m_where, "a string")
        _batches(measurement, path, m_where)
    throughput = _optional(rec, "throughput", (dict,), path, where, "an object")
    for key, value in (throughput or {}).items():
        if value is not None and not _number(value):
            _fail(path, where, f"throughput.{key}", value, "a finite number")
    if rec.get("pct_of_peak") is not None and not _number(rec["pct_of_peak"]):
        _fail(path, where, "pct_of_peak", rec["pct_of_peak"], "a finite number")
    for key in ("check", "budget", "compile_phases_s", "roofline"):
        _optional(rec, key, (dict,), path, where, "an object or null")
    _counts(rec, path, where)


def whole_count(value: Any) -> bool:
    """A count of instructions: a positive whole number (an integral float is one)."""
    return _number(value) and value > 0 and float(value).is_integer()


def _counts(rec: Mapping[str, Any], path: Any, where: str) -> None:
    """The instruction counts a compile item's count verdict judges (count_verdicts.py)."""
    counted = _optional(rec, "instructions", (dict,), path, where, "an object (what was counted, or why nothing was)")
    counts = (counted or {}).get("lowering")
    if counts is None:
        return
    should = "a list of positive whole numbers of instructions (re-count the item with --tlbench-instructions)"
    if not isinstance(counts, list):
        _fail(path, where, "instructions.lowering", counts, should)
    for i, count in enumerate(counts):
        if not whole_count(count):
            _fail(path, where, f"instructions.lowering[{i}]", count, should)


def _batches(measurement: Mapping[str, Any], path: Any, where: str) -> None:
    """The per-batch fields the clock witness, the drift and the rounds read (clock_witness.py,
    derived_drift.py): ``attempt`` a whole number, ``dropped`` true/false, ``telemetry`` an
    object whose ``sm_clock_mhz`` is a non-negative number and ``throttle_reasons`` a list of names."""
    batches = _optional(measurement, "batches", (list,), path, where, "a list")
    for i, batch in enumerate(batches or ()):
        if not isinstance(batch, dict) or (batch.get("median_s") is not None and not _number(batch["median_s"])):
            _fail(path, where, f"batches[{i}]", batch, "an object with a numeric median_s")
        attempt = batch.get("attempt")
        if attempt is not None and (not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 0):
            _fail(path, where, f"batches[{i}].attempt", attempt, "a non-negative integer")
        if batch.get("dropped") is not None and not isinstance(batch["dropped"], bool):
            _fail(path, where, f"batches[{i}].dropped", batch["dropped"], "true or false")
        telemetry = batch.get("telemetry")
        if telemetry is None:
            continue
        if not isinstance(telemetry, dict):
            _fail(path, where, f"batches[{i}].telemetry", telemetry, "an object (the device's state after the batch) or null")
        clock = telemetry.get("sm_clock_mhz")
        if clock is not None and (not _number(clock) or clock < 0):
            _fail(path, where, f"batches[{i}].telemetry.sm_clock_mhz", clock, "a non-negative number of MHz or null")
        reasons = telemetry.get("throttle_reasons")
        if reasons is not None and (not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons)):
            _fail(path, where, f"batches[{i}].telemetry.throttle_reasons", reasons, "a list of names")


def check_outcome(path: Any, where: str, rec: Mapping[str, Any], text_keys: tuple[str, ...]) -> None:
    """A failed or skipped item: ids, and its stage / error / reason as text."""
    _ids(path, where, rec)
    for key in text_keys:
        _optional(rec, key, (str,), path, where, "a string")


def suite_from(node: str | None) -> str:
    """The suite of a test node id: ``suites/gemm/test_stages.py::...`` -> ``stages``."""
    return Path((node or "").split("::", 1)[0]).stem.removeprefix("test_")


@dataclass(frozen=True)
class Item:
    """What a timed, failed and skipped item of a checked results file all say."""

    backend: str
    kind: str
    case_id: str
    nodeid: str | None
    fullname: str | None
    label: str | None
    problem_id: str | None
    config: Mapping[str, Any] | None
    plan: Mapping[str, Any] | None
    family: str | None
    kernel: str | None
    kernel_hash: str | None
    shard: str | None
    device_uuid: str | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)  # as written, with problem_id

    @property
    def suite(self) -> str:
        return suite_from(self.fullname or self.nodeid)

    @classmethod
    def _typed(cls, raw: Mapping[str, Any], **given: Any):
        """An item whose fields are ``raw``'s (the ids required), but those ``given``."""
        given = {"backend": raw["backend"], "kind": raw["kind"], "case_id": raw["case_id"],
                 "raw": raw, **given}
        return cls(**{f.name: raw.get(f.name) for f in fields(cls) if f.name not in given}, **given)


@dataclass(frozen=True)
class Outcome(Item):
    """A failed or skipped item (``status``): where it failed and why, or why it was skipped."""

    status: str
    stage: str | None
    error: str | None
    reason: str | None

    @classmethod
    def of(cls, status: str, raw: Mapping[str, Any]) -> "Outcome":
        return cls._typed(raw, status=status)


@dataclass(frozen=True)
class Record(Item):
    """One timed item; sections hold what was written (empty if absent)."""

    problem: Mapping[str, Any] | None
    samples_s: tuple[float, ...]
    cpu_samples_s: tuple[float, ...] | None
    machine_probe_cpu_s: tuple[float, ...] | None
    compile_round_robin: int | None
    summary: Mapping[str, Any]
    throughput: Mapping[str, Any]
    roofline: Mapping[str, Any] | None
    check: Mapping[str, Any] | None
    measurement: Mapping[str, Any] | None
    instructions: Mapping[str, Any] | None
    method: str | None
    compile_phases_s: Mapping[str, Any] | None
    cold_build_once: Mapping[str, Any] | None

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> "Record":
        """``raw`` typed (itself when it is a Record already)."""
        if isinstance(raw, Record):
            return raw
        cpu, probe = raw.get("cpu_samples_s"), raw.get("machine_probe_cpu_s")
        return cls._typed(raw, samples_s=tuple(raw.get("samples_s") or ()),
                          cpu_samples_s=None if cpu is None else tuple(cpu),
                          machine_probe_cpu_s=None if probe is None else tuple(probe),
                          summary=raw.get("summary") or {}, throughput=raw.get("throughput") or {})
