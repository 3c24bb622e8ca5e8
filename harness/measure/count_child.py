"""The process that runs under callgrind and counts compile items' cold lowerings.

Contract: ``python -m tlbench.harness.measure.count_child REQUEST.pkl ANSWER.json`` (a pickled
``ChildRequest``; outside Valgrind: exit 2).  It warms up uncounted, then counts each item's cold
lowering in a fork of its own between client requests (with ``device``, also the build's processes)
and writes ``{"setup_s", "warm_up", "items": {item_id: ItemCount}}``.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import pickle
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

WARM_UP_OWN = "the backend's own warm-up kernels"
WARM_UP_FIRST = "the first item's cold lowering (the backend has no warm_up_compile, or it failed)"


@dataclass(frozen=True)
class ChildRequest:
    """REQUEST.pkl: what the child loads and counts (``items``: ``BenchItem``s)."""

    sys_path: list[str]
    factory: str
    options: Mapping[str, Any]
    items: list
    lib: str  # the client-request helper
    device: bool
    out_dir: str


@dataclass(frozen=True)
class ItemCount:
    """One item's entry of ANSWER.json's ``items``."""

    dump: str
    wall_s: float = 0.0
    error: str | None = None
    device_files: list[str] | None = None
    device_wall_s: float | None = None
    device_error: str | None = None


def _words(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _count_one(lib: Any, name: str, work: Callable[[], object]) -> tuple[float, str | None]:
    gc.collect()
    gc.freeze()
    gc.disable()
    error = None
    start = time.perf_counter()
    lib.tlbench_start()
    try:
        work()
    except Exception as exc:  # noqa: BLE001 - reported as this item's absent count
        error = _words(exc)
    finally:
        lib.tlbench_stop(name.encode())
        wall = time.perf_counter() - start
        gc.enable()
        gc.unfreeze()
    return wall, error


def _device_build(backend: Any, case: Any, out_dir: Path) -> tuple[list[str], float, str | None]:
    """The cold build with every process it starts instrumented: their dump files, wall s, error."""
    before = set(os.listdir(out_dir))
    saved = os.environ.get("VALGRIND_OPTS")
    os.environ["VALGRIND_OPTS"] = "--instr-atstart=yes"  # read by each traced child as it starts
    start = time.perf_counter()
    error = None
    try:
        backend.compile(case, cold=True)
    except Exception as exc:  # noqa: BLE001 - reported as this item's absent device count
        error = _words(exc)
    finally:
        if saved is None:
            os.environ.pop("VALGRIND_OPTS", None)
        else:
            os.environ["VALGRIND_OPTS"] = saved
    own = f"cg.{os.getpid()}"
    files = sorted(n for n in set(os.listdir(out_dir)) - before if n.startswith("cg.") and not n.startswith(own))
    return files, round(time.perf_counter() - start, 2), error


def _warm_up(backend: Any, lowering: Callable[[Any], object], first_case: Any) -> str:
    """The uncounted first compile, and which one it was (a failed own warm-up counts as none)."""
    own = getattr(backend, "warm_up_compile", None)
    if callable(own):
        try:
            own()
            return WARM_UP_OWN
        except Exception:  # noqa: BLE001 - warm up on the first item instead
            pass
    with contextlib.suppress(Exception):  # a counted call meets the same fault and reports it
        lowering(first_case)
    return WARM_UP_FIRST


def _in_a_fork(name: str, work: Callable[[], ItemCount]) -> ItemCount:
    """``work()`` in a fork that ends as it answers: nothing it leaves reaches the next item."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()  # what this process printed goes out once, not again from the fork
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the fork: answer through the pipe and end, never returning into the caller
        code = 0
        try:
            os.close(read_end)
            payload = json.dumps(asdict(work())).encode()
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        except BaseException:  # noqa: BLE001 - the parent reports a fork that answered nothing
            code = 1
        finally:
            try:  # the lowering's own lines reach the child's log before the fork ends
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        payload = answer.read()
    _, status = os.waitpid(pid, 0)
    if payload:
        return ItemCount(**json.loads(payload))
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    return ItemCount(name, error=f"the fork that counted it ended ({how}) before it reported")


def _count_item(lib: Any, name: str, backend: Any, lowering: Callable[[Any], object], case: Any,
                spec: ChildRequest) -> ItemCount:
    wall, error = _count_one(lib, name, lambda: lowering(case))
    if error or not spec.device:
        return ItemCount(name, round(wall, 2), error)
    return ItemCount(name, round(wall, 2), None, *_device_build(backend, case, Path(spec.out_dir)))


def main(argv: list[str]) -> int:
    request, answer_path = Path(argv[0]), Path(argv[1])
    spec: ChildRequest = pickle.loads(request.read_bytes())
    sys.path[:0] = [p for p in spec.sys_path if p not in sys.path]
    lib = ctypes.CDLL(spec.lib)
    lib.tlbench_stop.argtypes = [ctypes.c_char_p]
    if not lib.tlbench_on_valgrind():
        print("count_child: not running under valgrind; nothing counted", file=sys.stderr)
        return 2
    from ..core.backend_api import backend_from_ref

    backend = backend_from_ref(spec.factory, spec.options)
    lower = getattr(backend, "lower", None)
    lowering = lower if callable(lower) else (lambda case: backend.compile(case, cold=True))
    start = time.perf_counter()
    warm_up = _warm_up(backend, lowering, spec.items[0].case)  # uncounted: imports and start-up
    setup_s = round(time.perf_counter() - start, 2)
    counts = {}
    for index, item in enumerate(spec.items):
        name = f"tlbench-item-{index}"
        count = _in_a_fork(name, lambda: _count_item(lib, name, backend, lowering, item.case, spec))
        counts[item.item_id] = asdict(count)
    answer_path.write_text(json.dumps({"setup_s": setup_s, "warm_up": warm_up, "items": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
