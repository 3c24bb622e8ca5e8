"""The backend half of ``kernel_sweep``: what traces bodies, makes tensors and judges outputs.

Contract: ``runtime()`` is the module the ``tlbench.sweep_runtime`` entry point names, imported
on first use: the harness reaches tilelang and torch only through it (this imports neither).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core.entry_points import load_group

GROUP = "tlbench.sweep_runtime"


@cache
def runtime() -> Any:
    loaders = load_group(GROUP)
    if not loaders:
        raise LookupError(f"no {GROUP} entry point: kernel_sweep cannot build or check a kernel (is tlbench installed?)")
    return next(iter(loaders.values()))()
