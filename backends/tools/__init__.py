"""Campaign tools that lower, build or time kernels: each module is run as
``python -m tlbench.backends.tools.<name>`` from the repository root (those that declare the built-in kernels read
them from its ``suites/`` folder, see ``suites_dir``).

Contract: the tools import torch and tilelang only inside functions, so importing a module here (as the tests do for
its pure parts) needs neither; no backend's runtime imports this package, so editing a tool leaves every cache key
(backends/source_tree.py) as it was.  Each module's docstring states its arguments, its output and its exit status.
The shell scripts under results/ call these modules.
- ``timer_crosscheck`` (selection, the harness and ncu steps) and ``timer_table`` (ncu's CSV, the table): CUDA
  events, CUPTI, a CUDA graph and ncu on the same kernels; ``isolation_probe``: a kernel from an idle GPU vs back to
  back (CUPTI);
- ``ncu_crosscheck``: the harness median of one built-in GEMM case beside ncu's;
- ``fa_report``: the flash-attention table of one run; ``fa_schedule_facts``: what the CUDA lowering did with each
  flash-attention body; ``fa_calibration``: the Ascend model's cycles at a published figure's config;
  ``wgmma_wait``: a GEMM's WGMMA issue and wait lines;
- ``warm_up_probe``: cold lowerings in a fresh process after each warm-up;
- diagnosis probes of the compile pool: ``child_builds``, ``thread_builds``, ``pool_probe``, ``gil_probe``.
"""

from __future__ import annotations

import sys
from pathlib import Path


def suites_dir() -> Path:
    """The built-in suites' folder: ``suites/`` of the checkout this file is in, else of the working directory; put
    on ``sys.path`` (a suite imports its sibling modules by name)."""
    checkout = Path(__file__).resolve().parents[2] / "suites"
    folder = checkout if checkout.is_dir() else Path.cwd() / "suites"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return folder
