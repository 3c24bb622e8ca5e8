"""What the harness shows and sets up for Ascend, without importing tilelang or torch_npu.

Contract (harness/core/backend_traits.py): plot colour and label, the plan summary in modeled
cycles labelled a model (``II 164 cyc v2/2 5576 cyc/core C/V overlap 12 cyc (model)``), pinning
through ``ASCEND_RT_VISIBLE_DEVICES``, the Z3 schedule figure and the pipes that load operands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from .pipes import LOAD_PIPES
from tlbench.harness.core.backend_traits import BackendOption

def _cycles_label(model: Mapping[str, Any]) -> str:
    """``cyc/core`` only where the modeled number is a per-core total (persistent kernels);
    for one block per tile it is one tile's K loop."""
    scope = str(model.get("modeled_cycles_scope") or "")
    return "cyc/tile K-loop" if scope.startswith("one tile") else "cyc/core"


class AscendTraits:
    name = "ascend"
    dialect = "ascend"  # the body a kernel family builds for this backend (as the backend's own ``dialect``)
    label = "ascend"
    color = "#c7000b"
    machine_info_keys = ("tilelang", "torch_npu", "cann", "bisheng")
    options: tuple[BackendOption, ...] = ()
    load_pipes = LOAD_PIPES  # GM -> L1 and L1 -> L0 copies feed the Cube

    def plan_summary(self, plan: Mapping[str, Any] | None) -> str:
        if not plan:
            return "-"
        pipe = plan.get("pipeline", {})
        versions = "/".join(str(b["versions"]) for b in plan.get("buffers", []) if b.get("scope") == "shared.l1")
        model = plan.get("schedule_model") or {}
        parts = [f"II {pipe.get('loop_ii_cycles_model')} cyc", f"v{versions}", f"{model.get('modeled_cycles_per_core')} {_cycles_label(model)}"]
        overlap = model.get("core_pipelining") or {}
        if overlap.get("applicable"):
            parts.append(f"C/V overlap {overlap['overlap_cycles']} cyc")
        return " ".join(parts) + " (model)"

    def testbed_fields(self, info: Mapping[str, Any]) -> dict[str, Any]:
        return {"driver": info.get("driver") or info.get("cann"), "vendor_library": info.get("torch_npu")}

    def device_env(self, device: str) -> dict[str, str]:
        return {"ASCEND_RT_VISIBLE_DEVICES": device}

    def device_ids(self) -> list[str]:
        return []

    def schedule_figure(self, records: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path | None:
        from .schedule_figure import write_schedule_png  # matplotlib, lazily

        return write_schedule_png(records, path, title=title)


TRAITS = AscendTraits()
