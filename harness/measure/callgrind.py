"""Instruction counts of compile items' cold lowering under Valgrind's callgrind, in a child
process.

Contract: ``callgrind_reason()``: None where ``valgrind`` and a C compiler exist, else why not.
``count_under_callgrind(request)`` returns ``{item_id: record["instructions"]}`` (every child fault
is each item's ``absent``); the request's ``stop`` event (``Stopped``) or an exception kills the
child's process group and re-raises.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..core.record import BenchItem
from .count_child import ChildRequest, ItemCount
from .instructions import CALLGRIND, absent, host_cpu

CHILD_TIMEOUT_S = 3600.0
STOP_POLL_S = 0.05  # how often a waiting thread looks at its request's stop event
CLIENT_SOURCE = r"""
#include <valgrind/valgrind.h>
#include <valgrind/callgrind.h>
int tlbench_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
void tlbench_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void tlbench_stop(const char *name) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT(name); }
"""
CALLGRIND_ISOLATION = (
    "a child process under valgrind --tool=callgrind with instrumentation off from its start (imports, backend "
    "set-up and an uncounted warm-up not counted); each item's cold lowering counted in a fork of that warmed-up "
    "process made for it alone (no item's count depends on the items counted before it), between "
    "CALLGRIND_START/STOP_INSTRUMENTATION client requests, the garbage collector held out, PYTHONHASHSEED=0"
)
# What makes two counts comparable besides the counter: the same method (count_verdicts.incomparable).
COUNT_METHOD = "callgrind, a fork per item after the warm-up: {warm_up}"


def valgrind_version() -> str | None:
    exe = shutil.which("valgrind")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _compiler() -> str | None:
    return next((shutil.which(c) for c in (os.environ.get("CC") or "cc", "cc", "gcc", "clang") if shutil.which(c)), None)


def callgrind_reason() -> str | None:
    if valgrind_version() is None:
        return "no valgrind on PATH (Debian/Ubuntu: apt-get install -y valgrind)"
    if _compiler() is None:
        return "no C compiler (cc) to build the callgrind client-request helper"
    return None


def build_client(directory: Path) -> Path:
    """The client-request helper as a shared library in ``directory`` (raises RuntimeError)."""
    source = directory / "tlbench_callgrind.c"
    lib = directory / "libtlbench_callgrind.so"
    source.write_text(CLIENT_SOURCE)
    compiler = _compiler()
    if compiler is None:
        raise RuntimeError("no C compiler (cc) to build the callgrind client-request helper")
    done = subprocess.run([compiler, "-O1", "-shared", "-fPIC", "-o", str(lib), str(source)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        raise RuntimeError(f"building the callgrind client-request helper failed: {last} (valgrind's headers: "
                           "Debian/Ubuntu package valgrind)")
    return lib


@dataclass(frozen=True)
class CountRequest:
    items: tuple[BenchItem, ...]
    factory: str  # module:qualname of the backend factory
    options: Mapping[str, Any]
    env: Mapping[str, str] = field(default_factory=dict)  # the child's extra environment (no device visible)
    device: bool = False
    timeout_s: float = CHILD_TIMEOUT_S
    python: str = sys.executable
    tick: Callable[[], None] | None = None  # called every second while the child runs (the caller's progress lines)
    counted: Callable[[int], None] | None = None  # told how many items the child has counted so far (its dumps)
    stop: threading.Event | None = None  # set by the caller: kill the child at once (a Ctrl-C elsewhere)


class Stopped(Exception):
    """The count was stopped by its request's ``stop`` event (the run was interrupted)."""


_TOTALS = re.compile(r"^totals:\s+(\d+)", re.M)
_TRIGGER = re.compile(r"^desc: Trigger: Client Request: (\S+)", re.M)


def read_dump(path: Path) -> tuple[str | None, int | None]:
    text = path.read_text(errors="replace")
    trigger, totals = _TRIGGER.search(text), _TOTALS.search(text)
    return (trigger.group(1) if trigger else None), (int(totals.group(1)) if totals else None)


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip() and not ln.startswith("==")]
    except OSError:
        return ""
    return " | ".join(text[-lines:])[:300]


def count_under_callgrind(request: CountRequest) -> dict[str, dict[str, object]]:
    ids = [it.item_id for it in request.items]
    if not ids:
        return {}
    reason = callgrind_reason()
    if reason:
        return {i: absent(reason) for i in ids}
    with tempfile.TemporaryDirectory(prefix="tlbench-callgrind-") as tmp:
        work = Path(tmp)
        try:
            lib = build_client(work)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            return {i: absent(str(exc)) for i in ids}
        spec = ChildRequest(list(sys.path), request.factory, dict(request.options),
                            list(request.items), str(lib), request.device, str(work))
        (work / "request.pkl").write_bytes(pickle.dumps(spec))
        out, log = work / "answer.json", work / "child.log"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={work}/cg.%p", "--dump-line=no",
                   *(["--trace-children=yes"] if request.device else []), request.python, "-m",
                   "tlbench.harness.measure.count_child", str(work / "request.pkl"), str(out)]
        env = {**os.environ, **request.env, "PYTHONHASHSEED": "0", "PYTHONPATH": os.pathsep.join(sys.path),
               "VALGRIND_OPTS": "--instr-atstart=no"}  # in the environment, not the command line: see count_child
        start = time.monotonic()
        with log.open("w") as stream:
            proc = subprocess.Popen(command, stdout=stream, stderr=subprocess.STDOUT, env=env, start_new_session=True)
            def tick() -> None:
                if request.counted is not None:
                    request.counted(len(_item_dumps(work)))  # one dump per counted item, each in its fork's file
                if request.tick is not None:
                    request.tick()

            try:
                code = _wait(proc, request.timeout_s, tick, request.stop)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return {i: absent(f"the callgrind count ran past {request.timeout_s:g} s and was stopped") for i in ids}
            except BaseException:  # a Ctrl-C (or Stopped): the child is in a session of its own, so nothing else stops it
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise
        wall = time.monotonic() - start
        tick()  # the last dumps, once more: the caller's count of items done ends whole
        if code != 0 or not out.exists():
            words = f"the callgrind count child exited with {code}: {_tail(log)}"
            return {i: absent(words) for i in ids}
        return _answers(request, work, out, proc.pid, wall, valgrind_version() or "valgrind")


def _wait(proc: subprocess.Popen, timeout_s: float, tick: Callable[[], None] | None,
          stop: threading.Event | None = None) -> int:
    """``proc.wait(timeout_s)``, ticking every second; raises ``Stopped`` once ``stop`` is set."""
    deadline = time.monotonic() + timeout_s
    next_tick = time.monotonic() + 1.0
    while True:
        if stop is not None and stop.is_set():
            raise Stopped("the instruction count was stopped (the run was interrupted)")
        now = time.monotonic()
        try:
            return proc.wait(timeout=max(0.0, min(next_tick, deadline) - now) if stop is None
                             else max(0.0, min(STOP_POLL_S, deadline - now)))
        except subprocess.TimeoutExpired:
            now = time.monotonic()
            if now >= deadline:
                raise
            if tick is not None and now >= next_tick:
                tick()
                next_tick = now + 1.0


def _answers(request: CountRequest, work: Path, out: Path, pid: int, wall: float,
             version: str) -> dict[str, dict[str, object]]:
    answer = json.loads(out.read_text())
    method = COUNT_METHOD.format(warm_up=answer.get("warm_up") or "unknown")
    dumps = {name: total for name, total in map(read_dump, _item_dumps(work))
             if name is not None and total is not None}
    results: dict[str, dict[str, object]] = {}
    for item_id, fields in answer["items"].items():
        got = ItemCount(**fields)
        if got.error:
            results[item_id] = absent(f"the counted lowering failed: {got.error}")
            continue
        total = dumps.get(got.dump)
        if total is None:
            results[item_id] = absent(f"callgrind wrote no dump named {got.dump}")
            continue
        rec: dict[str, object] = {
            "counter": CALLGRIND, "event": f"Ir (instructions executed; {version} --tool=callgrind)",
            "isolation": CALLGRIND_ISOLATION, "method": method, "cpu": host_cpu(), "lowering": [total],
            "count_wall_s": got.wall_s, "child_setup_s": answer.get("setup_s"),
            "child_wall_s": round(wall, 1),
            "count_child": pid,  # which child counted it (children run side by side: count_phase.py)
        }
        if request.device:
            rec.update(_device_counts(work, got))
        results[item_id] = rec
    for item in request.items:
        results.setdefault(item.item_id, absent("the callgrind count child did not report this item"))
    return results


def _item_dumps(work: Path) -> list[Path]:
    """The forks' per-item dumps (``cg.<pid>.<n>``), not a whole process's end dump."""
    return [p for p in work.glob("cg.*.*") if p.suffix[1:].isdigit()]


def _device_counts(work: Path, got: ItemCount) -> dict[str, object]:
    if got.device_error:
        return {"device_compiler_absent": f"the counted cold build failed: {got.device_error}"}
    files = [work / name for name in got.device_files or []]
    totals = [t for t in (read_dump(p)[1] for p in files if p.exists()) if t is not None]
    if not totals:
        return {"device_compiler_absent": "the cold build started no process here (no device compiler ran)"}
    return {"device_compiler": [sum(totals)], "device_compiler_processes": len(totals),
            "device_compiler_isolation": "every process the cold build started, counted under callgrind from its own "
                                         "start (--trace-children=yes), summed; the build's own Python not counted",
            "device_wall_s": got.device_wall_s}
