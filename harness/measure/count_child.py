"""The process that runs under callgrind and counts compile items' cold lowerings.

Contract: ``python -m tlbench.harness.measure.count_child REQUEST.pkl ANSWER.json``, started by
``harness/measure/callgrind.py::count_under_callgrind`` under ``valgrind --tool=callgrind``
with ``VALGRIND_OPTS=--instr-atstart=no``: nothing is instrumented until a client request
turns it on.  It loads the client-request helper (``lib``) and the backend (``factory`` with
``options``), refuses to count when not under Valgrind, pays one uncounted cold lowering of
the first item, then for each item: a full garbage collection, the collector frozen and
disabled, ``tlbench_start()`` (zero + start instrumentation), the backend's cold lowering
(``lower(case)``; ``compile(case, cold=True)`` for a backend without ``lower``),
``tlbench_stop(name)`` (stop + dump under ``name``).  With ``device`` it then builds the case
once more (``compile(case, cold=True)``) with ``VALGRIND_OPTS`` set to instrument from the
start, so every process that build starts (traced by ``--trace-children=yes``) is counted
whole in its own dump file; this process stays uninstrumented meanwhile.  ANSWER.json:
``{"setup_s", "items": {item_id: {"dump", "wall_s", "error"?, "device_files"?, ...}}}``.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any


def _lowering(backend: Any):
    lower = getattr(backend, "lower", None)
    return lower if callable(lower) else (lambda case: backend.compile(case, cold=True))


def _count_one(lib: Any, name: str, work) -> tuple[float, str | None]:
    gc.collect()
    gc.freeze()
    gc.disable()
    error = None
    start = time.perf_counter()
    lib.tlbench_start()
    try:
        work()
    except Exception as exc:  # noqa: BLE001 - reported as this item's absent count
        error = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        lib.tlbench_stop(name.encode())
        wall = time.perf_counter() - start
        gc.enable()
        gc.unfreeze()
    return wall, error


def _device_build(backend: Any, case: Any, out_dir: Path) -> dict[str, Any]:
    before = set(os.listdir(out_dir))
    saved = os.environ.get("VALGRIND_OPTS")
    os.environ["VALGRIND_OPTS"] = "--instr-atstart=yes"  # read by each traced child as it starts
    start = time.perf_counter()
    try:
        backend.compile(case, cold=True)
        error = None
    except Exception as exc:  # noqa: BLE001 - reported as this item's absent device count
        error = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if saved is None:
            os.environ.pop("VALGRIND_OPTS", None)
        else:
            os.environ["VALGRIND_OPTS"] = saved
    own = f"cg.{os.getpid()}"
    files = sorted(n for n in set(os.listdir(out_dir)) - before if n.startswith("cg.") and not n.startswith(own))
    return {"device_files": files, "device_wall_s": round(time.perf_counter() - start, 2), "device_error": error}


def main(argv: list[str]) -> int:
    request, answer_path = Path(argv[0]), Path(argv[1])
    spec = pickle.loads(request.read_bytes())
    sys.path[:0] = [p for p in spec["sys_path"] if p not in sys.path]
    lib = ctypes.CDLL(spec["lib"])
    lib.tlbench_stop.argtypes = [ctypes.c_char_p]
    if not lib.tlbench_on_valgrind():
        print("count_child: not running under valgrind; nothing counted", file=sys.stderr)
        return 2
    from tlbench.harness.core.backend_api import backend_from_ref

    backend = backend_from_ref(spec["factory"], spec.get("options"))
    lowering = _lowering(backend)
    items = spec["items"]
    start = time.perf_counter()
    try:
        lowering(items[0].case)  # uncounted: the process's first lowering pays imports and start-up
    except Exception:  # noqa: BLE001 - the counted call meets the same fault and reports it
        pass
    answer: dict[str, Any] = {"setup_s": round(time.perf_counter() - start, 2), "items": {}}
    for index, item in enumerate(items):
        name = f"tlbench-item-{index}"
        wall, error = _count_one(lib, name, lambda: lowering(item.case))
        got: dict[str, Any] = {"dump": name, "wall_s": round(wall, 2)}
        if error:
            got["error"] = error
        elif spec.get("device"):
            got.update(_device_build(backend, item.case, Path(spec["out_dir"])))
        answer["items"][item.item_id] = got
    answer_path.write_text(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
