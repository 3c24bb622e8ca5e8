"""What the NVIDIA backend's builds share: tilelang's cache switch, the source note for pass
configs the CUDA source does not show, and the ``Plan`` a build's facts make.

Contract: ``tilelang_cache_disabled()`` turns tilelang's process-wide kernel cache off under one
lock and restores it; ``pass_config_note`` is the lines under the CUDA source for the pass
configs (``tl.enable_fast_math`` its own; any other named with its value), "" for none, so that
two builds whose pass configs differ never read as one source (the inert-key probe compares them);
``cuda_plan`` the ``Plan`` from backends/gpu/plan.py's facts.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from typing import Any

from . import limits
from .traits import TRAITS
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.cases import Case, Plan

FAST_MATH = "tl.enable_fast_math"  # tilelang's PassConfigKey.TL_ENABLE_FAST_MATH
FAST_MATH_NOTE = "\n// tlbench: built with nvcc --use_fast_math (tl.enable_fast_math)\n"
_CACHE_SWITCH_LOCK = threading.Lock()  # tilelang's cache switch is one per process


@contextmanager
def tilelang_cache_disabled():
    import tilelang

    with _CACHE_SWITCH_LOCK:
        was_enabled = tilelang.is_cache_enabled()
        tilelang.disable_cache()
        try:
            yield
        finally:
            if was_enabled:
                tilelang.enable_cache()


def pass_config_note(pass_configs: dict[str, Any] | None) -> str:
    if not pass_configs:
        return ""
    rest = {k: v for k, v in pass_configs.items() if k != FAST_MATH}
    note = FAST_MATH_NOTE if pass_configs.get(FAST_MATH) else ""
    if rest:
        note += f"\n// tlbench: built with tilelang pass configs {json.dumps(rest, sort_keys=True, default=repr)}\n"
    return note


def cuda_plan(case: Case, facts: Any, arch: str, built: bool, extra_features: dict[str, Any]) -> Plan:
    traits = ask.kernel_traits(case, TRAITS.dialect)
    return Plan(
        backend=TRAITS.name,
        target=f"cuda {arch}",
        pipeline={**facts.pipeline, "loop_form": traits.loop_form, "num_stages": traits.num_stages},
        buffers=facts.buffers,
        bytes_per_scope={"shared.dyn": facts.dynamic_smem_bytes} if isinstance(facts.dynamic_smem_bytes, int) else {},
        limits={"shared.dyn": limits.SMEM_PER_BLOCK.get(arch, 0)},
        threads=facts.threads,
        features={**facts.features, "grid": facts.grid, "grid_dims": facts.grid_dims, "built": built,
                  "source_sha256": facts.source_sha256, **({"symbolic": facts.symbolic} if facts.symbolic else {}),
                  **extra_features},
    )
