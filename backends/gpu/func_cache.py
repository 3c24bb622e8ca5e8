"""The kernel's TIR, kept on disk beside tilelang's cache, so a warm compile skips building it.

Contract: ``FuncCache(directory)`` (None: nothing stored); ``key(...)`` names a kernel's IR by
compiler, target, body key and case id; ``get(key)`` returns the stored ``PrimFunc`` or None;
``put(key, func)`` writes it atomically.  Cold compiles never use it: they time the whole build.
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
