"""The kernel's TIR, kept on disk beside tilelang's cache, so a warm compile skips building it.

Contract: ``FuncCache(directory)``; ``key(lowering_key, body_key, case_id)`` names a kernel's IR by the compiler and
target, the case id (problem and config) and ``body_key``: the backend's name for everything else that builds the IR
- the kernel hash (the source of every module of the body, wherever it lives: harness/core/kernel_traits.py), the
source hash of the code the backend's runtime compiles with (backends/source_tree.py) and the pass configs;
``get(key)`` returns the stored ``PrimFunc`` (``tvm.ir.load_json``) or None; ``put(key, func)`` writes it
(``tvm.ir.save_json``) atomically (backends/gpu/keyed_files.py).  A file that cannot be read is ignored.
``directory`` None: nothing is stored.

Why: a warm compile then skips building the IR from the Python body (TVMScript parsing, 20-100 ms under the GIL);
tilelang still keys its cache by the IR it is given (the body's IR byte for byte: tests/test_func_cache.py), so a
stored IR only names the kernel it was built as.  Cold compiles (compile items) never use it: they time the whole
build.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .keyed_files import KeyedFiles

FORMAT = 2


class FuncCache(KeyedFiles):
    @staticmethod
    def key(lowering_key: str, body_key: str | None, case_id: str) -> str:
        text = json.dumps([FORMAT, lowering_key, body_key, case_id])
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
