"""A backend's device items spread over several devices in one pytest process.

Contract: ``spread_devices(config, hidden)`` is ``--tlbench-devices`` as a list when it names two
or more ids and this is no xdist process, else [] (with ``--tlbench-isolation inprocess`` a usage
error).  ``largest_problem_first(items, items_by_id)`` reorders the device items in place, in the
slots they held, largest problem first (the order pieces are measured in).
"""

from __future__ import annotations

from typing import Any

import pytest

from ..core.record import BenchItem
from ..measure.device_pieces import expected_cost
from .manners import item_id_of
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
        found = items_by_id.get(item_id_of(item))
        return found if isinstance(found, BenchItem) and found.kind == "device" else None

    slots = [k for k, item in enumerate(items) if bench(item) is not None]
    ordered = sorted((items[k] for k in slots), key=lambda item: -expected_cost(bench(item)))  # stable
    for k, item in zip(slots, ordered):
        items[k] = item
