"""What a run adds to pytest-benchmark's ``machine_info``: every loaded backend's device info.

Contract: ``fill_machine_info(machine_info, registry)`` puts each loaded backend's ``device_info()``
under ``machine_info["tlbench"]["backends"]``, an ``accelerator`` line, and the values of each
backend's ``machine_info_keys`` joined across backends (nothing when no backend loaded).
``add_spread_devices(machine_info, infos)``: a backend whose workers reported two or more devices
gains ``spread_summary`` of them (``workers``, ``accelerators``, ``devices``: the keys a merged
xdist run has).  ``MachineInfoOnce``: pytest-benchmark's ``generate_machine_info`` runs
subprocesses; the first answer of this process is kept and later asks get a copy.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

import pytest

from ..core.record import EXTRA_KEY, SCHEMA_VERSION
from ..core.registry import BackendRegistry


def fill_machine_info(machine_info: dict[str, Any], registry: BackendRegistry) -> None:
    backends = {name: backend.device_info() for name, backend in registry.loaded().items()}
    if not backends:
        return
    machine_info[EXTRA_KEY] = {"schema_version": SCHEMA_VERSION, "backends": backends}
    accelerators = [f"{n}: {i.get('accelerator') or 'none (' + str(i.get('missing')) + ')'}" for n, i in backends.items()]
    machine_info["accelerator"] = "; ".join(accelerators)
    for key in dict.fromkeys(k for name in backends for k in registry.traits(name).machine_info_keys):
        values = {i.get(key) for i in backends.values() if i.get(key)}
        if values:
            machine_info[key] = ", ".join(sorted(map(str, values)))


def spread_summary(infos: Sequence[Mapping[str, object]]) -> dict[str, object]:
    return {"workers": len(infos), "accelerators": sorted({str(i.get("accelerator")) for i in infos}),
            "devices": sorted({str(i.get("uuid") or i.get("visible_devices") or i.get("accelerator")) for i in infos})}


def add_spread_devices(machine_info: dict[str, Any], infos: Mapping[str, Sequence[Mapping[str, object]]]) -> None:
    backends = (machine_info.get(EXTRA_KEY) or {}).get("backends") or {}
    for name, per_device in infos.items():
        if name in backends and len(per_device) > 1:
            backends[name] = {**backends[name], **spread_summary(per_device)}


class MachineInfoOnce:
    """Register ``plugins()``: pytest takes a hook implementation only under the hook's own name,
    so the first-answer and the keeping wrapper are two objects."""

    def __init__(self) -> None:
        self.info: dict[str, Any] | None = None
        once = self

        class Known:
            @pytest.hookimpl(tryfirst=True)
            def pytest_benchmark_generate_machine_info(self):
                return copy.deepcopy(once.info) if once.info is not None else None

        class Keep:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_benchmark_generate_machine_info(self):
                outcome = yield
                if once.info is None:
                    once.info = copy.deepcopy(outcome.get_result())

        self._plugins = (Known(), Keep())

    def plugins(self) -> tuple[Any, Any]:
        return self._plugins
