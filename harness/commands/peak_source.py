"""Profiles for records written before % of peak existed, through the Backend protocol.

Contract: ``annotate_from_backends()`` returns an ``ingest.Annotate``: a timed device record
without ``pct_of_peak`` gains the roofline fields from its backend's ``device_profile`` (loaded
once per backend), noted ``roofline.annotated``; anything else is returned unchanged.
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.registry import BackendRegistry
from ..results.report.roofline import roofline_fields


def annotate_from_backends(registry: BackendRegistry | None = None) -> Callable[[dict, dict], dict]:
    loaded: dict[str, Any] = {}

    def backend(name: str) -> Any:
        if name not in loaded:
            reg = registry or BackendRegistry.from_entry_points()
            try:
                loaded[name] = reg.get(name) if name in reg.names else None
            except Exception:  # a backend that cannot be imported here: leave its records as they are
                loaded[name] = None
        return loaded[name]

    def annotate(record: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        throughput = record.get("throughput") or {}
        if record.get("kind") != "device" or "pct_of_peak" in throughput or not throughput.get("tflops"):
            return record
        lookup = getattr(backend(record["backend"]), "device_profile", None)
        if not callable(lookup):
            return record
        fields = roofline_fields(record, lookup(info), info.get("accelerator"))
        if fields:
            fields["roofline"]["annotated"] = "at history ingest"
            record.update(fields)
        return record

    return annotate
