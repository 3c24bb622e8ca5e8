"""A backend's device items spread over several devices in one pytest process: which devices, and the items' order.

Contract: ``spread_devices(config, hidden)`` is ``--tlbench-devices`` as a list when it names two or more ids
and this is no pytest-xdist process (``hidden``: the parked xdist worker marker; the controller): this process
then runs one worker per device and spreads each backend's device items over them
(harness/measure/device_phase.py); [] otherwise.  Several devices with ``--tlbench-isolation inprocess`` is a
usage error that says what to do. ``largest_problem_first(items, items_by_id)`` reorders the pytest items in
place so the tlbench device items (found through ``items_by_id``) run largest problem first, in the slots
device items held (nothing else moves): pieces are measured in that order (harness/measure/device_pieces.py),
so pytest reports each piece's items while later pieces are still measured, instead of all of them after the
last.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..core.record import BenchItem
from ..measure.device_pieces import expected_cost
from .xdist_support import device_ids, is_controller


def spread_devices(config: Any, hidden: str | None) -> list[str]:
    option = config.getoption("tlbench_devices")
    if not option or hidden is not None or is_controller(config):
        return []
    devices = device_ids(option, [])
    if len(devices) > 1 and config.getoption("--tlbench-isolation") != "worker":
        raise pytest.UsageError(f"--tlbench-devices={option} spreads the device items over one worker process per device; "
                                "drop --tlbench-isolation inprocess, or name one device")
    return devices if len(devices) > 1 else []


def largest_problem_first(items: list[Any], items_by_id: dict[str, BenchItem]) -> None:
    def bench(item: Any) -> BenchItem | None:
        callspec = getattr(item, "callspec", None)
        found = items_by_id.get(callspec.params.get("tlbench_item")) if callspec else None
        return found if isinstance(found, BenchItem) and found.kind == "device" else None

    slots = [k for k, item in enumerate(items) if bench(item) is not None]
    ordered = sorted((items[k] for k in slots), key=lambda item: -expected_cost(bench(item)))  # stable
    for k, item in zip(slots, ordered):
        items[k] = item
