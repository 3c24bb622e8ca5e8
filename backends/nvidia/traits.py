"""What the harness shows and sets up for NVIDIA, without importing tilelang or torch.

Contract (harness/core/backend_traits.py): plot colour and label, the one-line plan summary
(``sw [0, 0, 1]/[0, 1, 2] v2/2 smem 65536 t128``), worker pinning through
``CUDA_VISIBLE_DEVICES``, a device record's ``measurement_method`` and the options that set it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..gpu.flush_choice import FLUSH_MODES, flush_mode_of
from .timer_choice import TIMERS
from tlbench.harness.core.backend_traits import BackendOption

ARCH_OPTION = BackendOption(name="--tlbench-nvidia-arch", dest="nvidia_arch",
                            help="CUDA arch to compile for when no GPU decides it (default sm_90a)")
TIMER_OPTION = BackendOption(
    name="--tlbench-nvidia-timer",
    dest="nvidia_timer",
    help="how device items are timed: cupti (default: the GPU's own kernel timestamps), events (a CUDA event "
         "pair around each call) or graph (K launches in one CUDA graph, replay time / K); the record's "
         "method says which ran",
    choices=TIMERS,
)
FLUSH_OPTION = BackendOption(
    name="--tlbench-nvidia-l2-flush",
    dest="nvidia_l2_flush",
    help="how the L2 is emptied before each timed call: write (default: overwrite a buffer twice L2's size; "
         "L2 is left full of its dirty lines, which the timed kernel's misses write back to memory) or read "
         "(read that buffer: clean lines, nothing to write back, as ncu's --cache-control all leaves it); "
         "a record timed after a read flush says so in its notes",
    choices=FLUSH_MODES,
)


class NvidiaTraits:
    name = "nvidia"
    dialect = "cuda"  # the body a kernel family builds for this backend (as the backend's own ``dialect``)
    label = "nvidia"
    color = "#76b900"
    machine_info_keys = ("tilelang", "torch", "torch_cuda", "driver")
    options = (ARCH_OPTION, TIMER_OPTION, FLUSH_OPTION)
    load_pipes: frozenset[str] = frozenset()
    runtime_warm_up = "tlbench.backends.nvidia.warm_up:warm_up"  # cuBLAS and CUPTI first use, in the device worker
    method_options = (TIMER_OPTION.name, FLUSH_OPTION.name)  # what sets a device record's measurement_method

    def plan_summary(self, plan: Mapping[str, Any] | None) -> str:
        if not plan:
            return "-"
        pipe = plan.get("pipeline", {})
        versions = "/".join(str(b["versions"]) for b in plan.get("buffers", []) if b.get("scope") == "shared.dyn")
        kind = pipe.get("kind", "?")
        if kind == "software-pipeline":
            head = f"sw {pipe.get('stage')}/{pipe.get('order')}"
        elif kind == "warp-specialized":
            head = "warp-spec"
        else:
            head = "no pipeline"
        smem = (plan.get("bytes_per_scope") or {}).get("shared.dyn")
        return f"{head} v{versions} smem {smem} t{plan.get('threads')}"

    def testbed_fields(self, info: Mapping[str, Any]) -> dict[str, Any]:
        return {"driver": info.get("driver"), "vendor_library": info.get("torch")}

    def measurement_method(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """``timer`` and ``L2 flush`` of a device record (those it has); {} for a compile one."""
        if record.get("kind") == "compile":
            return {}
        method: dict[str, Any] = {}
        if record.get("method") is not None:
            method["timer"] = record["method"]
        flush = flush_mode_of(record.get("l2_flush_bytes"), record.get("notes"))
        if flush is not None:
            method["L2 flush"] = flush
        return method

    def device_env(self, device: str) -> dict[str, str]:
        return {"CUDA_VISIBLE_DEVICES": device}

    def device_ids(self) -> list[str]:
        try:
            out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return []
        return [str(i) for i in range(sum(1 for line in out.stdout.splitlines() if line.startswith("GPU ")))]

    def schedule_figure(self, records: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path | None:
        return None  # no schedule model: the stage report draws the model fitted to device times


TRAITS = NvidiaTraits()
