"""What tlbench does with pytest-benchmark's ``machine_info``: fills it, and compares it.

Contract: ``fill_machine_info(machine_info, registry)``, ``add_spread_devices``; ``MachineInfoOnce``
keeps the first ``generate_machine_info`` answer; ``MachineCompare(owned_keys)`` lends the saved
run's owned values to the configure-time compare; ``finish(config, extra)`` warns where they differ.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

import pytest

from ..core.record import EXTRA_KEY, SCHEMA_VERSION
from ..core.registry import BackendRegistry

_MISSING = object()


class MachineCompare:
    def __init__(self, owned_keys: tuple[str, ...]) -> None:
        self.owned_keys = owned_keys
        self.saved: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (saved run's owned values, its whole machine_info)

    @pytest.hookimpl(wrapper=True)
    def pytest_benchmark_compare_machine_info(self, config, benchmarksession, machine_info, compared_benchmark):
        saved_info = compared_benchmark.get("machine_info") or {}
        saved = {k: saved_info[k] for k in self.owned_keys if k in saved_info}
        if not saved:
            return (yield)
        self.saved.append((copy.deepcopy(saved), saved_info))
        current = {k: machine_info.pop(k, _MISSING) for k in self.owned_keys}
        machine_info.update(copy.deepcopy(saved))
        try:
            return (yield)
        finally:
            for key, value in current.items():
                machine_info.pop(key, None)
                if value is not _MISSING:
                    machine_info[key] = value

    def finish(self, config, extra: Mapping[str, object]) -> None:
        """``extra``: what the xdist controller adds to the merged file's machine info."""
        session = getattr(config, "_benchmarksession", None)
        if not self.saved or session is None:
            return
        from pytest_benchmark.utils import consistent_dumps

        info = config.hook.pytest_benchmark_generate_machine_info(config=config)
        config.hook.pytest_benchmark_update_machine_info(config=config, machine_info=info)
        info.update(extra)
        mine = {k: info[k] for k in self.owned_keys if k in info}
        for saved, whole in self.saved:
            if consistent_dumps(saved) != consistent_dumps(mine):
                session.logger.warning(f"Benchmark machine_info is different. Current: {consistent_dumps(info)} VS saved: "
                                       f"{consistent_dumps(whole)} (location: {session.storage.location}).")
        self.saved.clear()


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
    """Register ``plugins``: pytest takes a hook implementation only under the hook's own name,
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

        self.plugins = (Known(), Keep())
