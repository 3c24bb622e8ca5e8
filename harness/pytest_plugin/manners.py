"""What keeps a pytest run that is not about tlbench as it would be without tlbench.

Contract: ``register_machine_compare(config, registry)`` (a ``MachineCompare`` under
``--benchmark-compare``, else None); ``skip_without_benchmark`` skips tlbench items under ``-p
no:benchmark``; ``has_tlbench_item(items)``; ``item_id_of(item)``: its tlbench item id, or None.
"""

from __future__ import annotations

from typing import Any, Sequence

import pytest

from ..core.record import EXTRA_KEY
from .compare_machine import MachineCompare

ITEM_PARAM = "tlbench_item"


def item_id_of(item: Any) -> str | None:
    return getattr(getattr(item, "callspec", None), "params", {}).get(ITEM_PARAM)


def register_machine_compare(config, registry) -> MachineCompare | None:
    if not config.pluginmanager.hasplugin("benchmark") or not config.getoption("benchmark_compare", None):
        return None
    owned = (EXTRA_KEY, "accelerator", *(k for n in registry.names for k in registry.traits(n).machine_info_keys))
    compare = MachineCompare(tuple(dict.fromkeys(owned)))
    config.pluginmanager.register(compare, "tlbench-machine-compare")
    return compare


def skip_without_benchmark(config, items: Sequence[Any]) -> None:
    if config.pluginmanager.hasplugin("benchmark"):
        return
    skip = pytest.mark.skip(reason="tlbench: pytest-benchmark is turned off (-p no:benchmark); tlbench items need it")
    for item in items:
        if ITEM_PARAM in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


def has_tlbench_item(items: Sequence[Any]) -> bool:
    return any(item_id_of(i) is not None for i in items)
