"""Provenance and roofline fields added to a timed record before it is written.

Contract: ``enrich_record(record, backend, case, calibrated)`` adds ``kernel_hash`` (None for the
vendor library) and, for a device record, the roofline fields of the backend's optional
``device_profile`` and ``roofline_calibrated``.  A missing optional method never raises.
"""

from __future__ import annotations

from typing import Any

from ..core.cases import VendorCase
from ..results.report.roofline import roofline_fields
from .calibrated import calibrated_fields


def profile_of(backend: Any):
    """(profile or None, device name) of a backend, through its optional ``device_profile``."""
    info = backend.device_info() or {}
    lookup = getattr(backend, "device_profile", None)
    return (lookup(info) if callable(lookup) else None), info.get("accelerator")


def enrich_record(record: dict[str, Any], backend: Any, case: Any, calibrated: Any = None) -> None:
    hasher = getattr(backend, "kernel_body_hash", None)
    is_kernel = not isinstance(case, VendorCase)  # the vendor library has no body of ours
    record["kernel_hash"] = hasher(case) if callable(hasher) and is_kernel else None
    if record.get("kind") == "device":
        profile, device = profile_of(backend)
        record.update(roofline_fields(record, profile, device))
        record.update(calibrated_fields(record, calibrated, device))
