"""The kernel's TIR, kept on disk beside tilelang's cache, so a warm compile skips building it.

Contract: ``FuncCache(directory)``; ``key(lowering_key, case_id)`` names a kernel's IR by
the compiler and target, the case id (problem and config) and the hash of every source file
of the ``backends`` package (backends/kernels/source_hash.py::backends_tree_hash: the bodies,
dialects, families and backends that build the IR); ``get(key)`` returns the stored
``PrimFunc`` (``tvm.ir.load_json``) or None; ``put(key, func)`` writes it (``tvm.ir.save_json``)
atomically (a temporary file, then ``os.replace``).  A file that cannot be read is ignored.
``directory`` None: nothing is stored.

Why: a warm compile used to build the kernel's IR from its Python body (TVMScript parsing:
about 20 ms per GEMM and 100 ms per flash-attention kernel here, under the GIL) only for
tilelang to hash it and find the kernel in its cache; loading the stored IR takes 2-8 ms.
Safe by construction: tilelang still computes its own cache key from the IR it is given
(which is the IR the body builds, byte for byte: tests/test_func_cache.py), so a stored IR
can only ever name the kernel it was built as, and any change to the code that builds IR
changes ``key``.  Cold compiles (compile items) never use it: they time the whole build.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from backends.kernels.source_hash import backends_tree_hash
from backends.nvidia.plan_cache import write_atomically

FORMAT = 1


class FuncCache:
    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    @staticmethod
    def key(lowering_key: str, case_id: str) -> str:
        text = json.dumps([FORMAT, backends_tree_hash(), lowering_key, case_id])
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path | None:
        return self.directory / f"{key}.json" if self.directory is not None else None

    def get(self, key: str) -> Any:
        path = self._path(key)
        if path is None or not path.exists():
            return None
        import tvm

        try:
            return tvm.ir.load_json(path.read_text())
        except Exception:  # noqa: BLE001 - a damaged or foreign file: build the IR again
            return None

    def put(self, key: str, func: Any) -> None:
        path = self._path(key)
        if path is None:
            return
        import tvm

        try:
            write_atomically(path, tvm.ir.save_json(func))
        except (OSError, ValueError, RuntimeError):
            return  # a read-only or full disk (or an IR tvm cannot write) costs a build next time, nothing else
