"""Campaign tools that lower, build or time kernels, each run as ``python -m
tlbench.backends.tools.<name>`` from the repository root (results/' shell scripts call them).

Contract: the tools import torch and tilelang only inside functions; no backend's runtime imports
this package, so editing a tool leaves every cache key (backends/source_tree.py) as it was.
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
