"""The main job's one-off costs, paid outside every timed item.

Contract: ``pay_setup_once(backend, item, wait_idle)``: one untimed cold compile of a compile item's
case once the pool is idle, its wall seconds (a compile error is left to the timed item);
``time_once(work)``; ``setup_account(...)`` / ``setup_words(backend, account)``: where it went.
"""

from __future__ import annotations

import contextlib
import time
from typing import Callable

from ..core.backend_api import Backend, CompileError
from ..core.cases import Case
from ..core.record import BenchItem

SLOW_SETUP_S = 5.0  # a setup over this says where its time went


def time_once(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    with contextlib.suppress(Exception):  # the timed item that follows meets and reports it
        work()
    return time.perf_counter() - start


def pay_setup_once(backend: Backend, item: BenchItem, wait_idle: Callable[[], None]) -> float:
    if not isinstance(item.case, Case) or backend.rejection(item.case) is not None:
        return 0.0
    wait_idle()
    start = time.perf_counter()
    with contextlib.suppress(CompileError):  # the timed item meets it again
        backend.compile(item.case, cold=True)
    return time.perf_counter() - start


def setup_account(total_s: float, start_s: float, item_id: str, own_lowering_s: float | None = None,
                  warm_up_s: float | None = None) -> dict:
    account = {"total_s": round(total_s, 3), "start_s": round(start_s, 3), "first_compile_s": round(max(0.0, total_s - start_s), 3),
               "item": item_id, "own_lowering_s": None if own_lowering_s is None else round(own_lowering_s, 3)}
    if warm_up_s is not None:  # the backend's warm-up compile, before the worker's "ready": no item was compiled
        account["warm_up_s"] = round(warm_up_s, 3)
    return account


def setup_words(backend: str, account: dict) -> str:
    first, start, own = account.get("first_compile_s") or 0.0, account.get("start_s") or 0.0, account.get("own_lowering_s")
    warm = account.get("warm_up_s")
    parts = []
    if warm is not None:
        parts.append(f"{start:.1f} s waiting for the compiling process to start (its imports: the compiler and its runtime; "
                     f"then its first compile, of the backend's own warm-up kernels: {warm:.1f} s of its start-up)")
        parts.append(f"{first:.1f} s loading the first item's modules in it ({account.get('item')}), no compile")
        return f"{backend} setup {account.get('total_s', 0.0):.1f} s: " + "; ".join(parts)
    if start >= 0.05:
        parts.append(f"{start:.1f} s waiting for the compiling process to start (its imports: the compiler and its runtime)")
    compile_words = f"{first:.1f} s its first compile, of {account.get('item')}"
    if own is not None:
        compile_words += (f": {min(own, first):.1f} s that item's own lowering (its median timed round) and "
                          f"{max(0.0, first - own):.1f} s one-off (lazy imports, solver start-up, code generators warming up)")
    parts.append(compile_words)
    return f"{backend} setup {account.get('total_s', 0.0):.1f} s: " + "; ".join(parts)
