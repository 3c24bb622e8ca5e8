"""What tilelang decided for a kernel (its ``PlanFacts``), kept on disk beside tilelang's cache.

Contract: ``PlanCache(directory)``; ``key(lowering_key, body_hash, case_id)`` names a kernel
by everything that decides its lowered source (the compiler and target, the hash of the
kernel body's source, the case id: problem and config) and the source of the plan reader; ``get(key)`` returns the stored
``PlanFacts`` or None; ``put(key, facts)`` writes one small JSON file atomically (a temporary
file, then ``os.replace``: concurrent workers never read half a file).  A file that cannot be
read is ignored (the caller lowers again).  Why: when tilelang's kernel cache answers a
compile, nothing is lowered, and reading the plan used to mean lowering the kernel once more
(about 0.2 s of Python per kernel, under the GIL: ~35 s for the 172 kernels of the full tile
sweep before its first item could run, paid again by every pytest-xdist worker).
``directory`` None: nothing is stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from backends.kernels.source_hash import module_hash
from backends.nvidia.plan import PlanFacts

FORMAT = 1


class PlanCache:
    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    @staticmethod
    def key(lowering_key: str, body_hash: str | None, case_id: str) -> str:
        """Also keyed by the source of the plan reader (backends/nvidia/plan.py): a change in
        what a plan records never reads an older file."""
        text = json.dumps([FORMAT, module_hash("backends.nvidia.plan"), lowering_key, body_hash, case_id])
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path | None:
        return self.directory / f"{key}.json" if self.directory is not None else None

    def has(self, key: str) -> bool:
        """A plan is stored under ``key`` (its kernel was built here, so tilelang's cache likely holds it)."""
        path = self._path(key)
        return path is not None and path.exists()

    def get(self, key: str) -> PlanFacts | None:
        path = self._path(key)
        if path is None or not path.exists():
            return None
        try:
            return PlanFacts(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def put(self, key: str, facts: PlanFacts) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            write_atomically(path, json.dumps(asdict(facts)))
        except OSError:
            return  # a read-only or full disk costs a lowering next time, nothing else


def write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file and ``os.replace``: a concurrent reader
    sees the old file or the whole new one, never half of it.  Raises ``OSError``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:8]}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
