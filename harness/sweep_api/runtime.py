"""The backend half of ``kernel_sweep``: what traces bodies, makes tensors and judges outputs.

Contract: ``runtime()`` is the module the ``tlbench.sweep_runtime`` entry point names (tlbench's
own: backends/kernels/generic/runtime.py), imported on first use: the harness reaches tilelang
and torch through it, never by an import of its own (tests/test_boundary.py).  It provides
``is_body(value)``, ``EXAMPLE_DIALECTS`` (the dialects an error message's example names),
``judge(rule, out, ref)`` and the running members of ``GenericFamily`` (harness/sweep_api/
family.py), each taking the family first.  Importing it imports neither tilelang nor torch.
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
