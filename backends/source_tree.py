"""The hash of the tlbench backends package's own source, for caches that must never outlive a
change to it.

Contract: ``backends_tree_hash()`` is ``sha256:<hex>`` over every ``.py`` file of this package
(relative paths and contents), read once per process: it changes with any code that could shape
a kernel's IR (bodies, dialects, families, backends).  Found from this file's own location, so
it works from any working directory (an installed tlbench, a user's project).  A kernel body
outside the package is covered by the kernel hash instead (harness/core/kernel_traits.py).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def backends_tree_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(ROOT.rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()
