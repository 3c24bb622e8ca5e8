"""Drift verdicts for records written before the measurement loop recorded one.

Contract: ``with_derived_drift(record)``: the record itself when its ``measurement`` has a
``drift`` or no batches; else a copy with what harness/measure/drift.py finds in its kept batch
medians (``drift_derived: true``, ``summary.status`` ``DRIFT`` when found), so older records
are judged as the loop judges today.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...measure.drift import DEFAULT_THRESHOLD, detect_drift


def with_derived_drift(record: Mapping[str, Any]) -> dict[str, Any]:
    measurement = record.get("measurement")
    if not isinstance(measurement, dict) or "drift" in measurement:
        return record
    medians = [float(b["median_s"]) for b in measurement.get("batches") or () if isinstance(b, dict)
               and not b.get("dropped") and isinstance(b.get("median_s"), (int, float))]
    if len(medians) < 2:
        return record
    threshold = measurement.get("drift_threshold")
    finding = detect_drift(medians, threshold if isinstance(threshold, (int, float)) and threshold > 0 else DEFAULT_THRESHOLD)
    derived = {**measurement, "drift": finding.to_dict() if finding else None, "drift_derived": True}
    out = {**record, "measurement": derived}
    if finding is not None:
        out["summary"] = {**(record.get("summary") or {}), "status": "DRIFT"}
    return out
