"""The kernel's TIR, kept on disk beside tilelang's cache, so a warm compile skips building it.

Contract: ``FuncCache(directory)``; ``key(lowering_key, case_id)`` names a kernel's IR by
the compiler and target, the case id (problem and config) and the hash of every source file
of the ``backends`` package (backends/kernels/source_hash.py::backends_tree_hash: the bodies,
dialects, families and backends that build the IR); ``get(key)`` returns the stored
``PrimFunc`` (``tvm.ir.load_json``) or None; ``put(key, func)`` writes it (``tvm.ir.save_json``)
atomically (backends/nvidia/keyed_files.py).  A file that cannot be read is ignored.
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
from typing import Any

from tlbench.backends.kernels.source_hash import backends_tree_hash
from tlbench.backends.nvidia.keyed_files import KeyedFiles

FORMAT = 1


class FuncCache(KeyedFiles):
    @staticmethod
    def key(lowering_key: str, case_id: str) -> str:
        text = json.dumps([FORMAT, backends_tree_hash(), lowering_key, case_id])
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, key: str) -> Any:
        text = self.read(key)
        if text is None:
            return None
        import tvm

        try:
            return tvm.ir.load_json(text)
        except Exception:  # noqa: BLE001 - a damaged or foreign file: build the IR again
            return None

    def put(self, key: str, func: Any) -> None:
        if self.directory is None:
            return
        import tvm

        try:
            text = tvm.ir.save_json(func)
        except (ValueError, RuntimeError):
            return  # an IR tvm cannot write: built again next time
        self.write(key, text)  # refused by the disk: built again next time
