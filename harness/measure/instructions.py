"""Instructions executed by a compile item's cold lowering: a compile metric that load cannot move.

Contract:
- ``MODES`` / ``add_options(group)``: ``--tlbench-instructions hardware|subset|all``
  (default ``hardware``), ``--tlbench-instructions-subset N`` (default 2),
  ``--tlbench-instructions-device``.  ``hardware``: a hardware counter where the machine has
  one (it costs nothing, so every timed round is counted), nothing else; ``subset`` / ``all``:
  the same, else Valgrind's callgrind on ``N`` items per backend of the session
  (``subset_of``) or on every compile item (``InstructionCounting``).
- ``HardwareCounter.open()`` is the user-space instruction counter of this thread and what it
  starts (``perf_event_open``, ``PERF_COUNT_HW_INSTRUCTIONS``, kernel excluded, inherited by
  the threads and processes started while it runs) or a one-line reason there is none
  (``hardware_reason``); ``count(work)`` runs ``work`` between enable and disable and returns
  its result with ``(instructions of this thread and its children, of the children alone)``.
- ``callgrind_reason()`` is None where ``valgrind`` and a C compiler exist, else why not.
- ``count_under_callgrind(request)`` times nothing: it runs ``harness/measure/count_child.py``
  in a child process under ``valgrind --tool=callgrind`` with instrumentation off from the
  start; the child loads the backend from its factory path, pays one uncounted cold lowering
  (imports, solver start-up), then counts each item's cold lowering between client requests
  (``CALLGRIND_START/STOP_INSTRUMENTATION``, a dump per item; the garbage collector held out as
  in a timed round).  With ``device`` it also builds each item once with the processes that
  build starts counted from their own start (``--trace-children=yes``; the device compiler).
  Returns ``{item_id: record["instructions"] value}``; a failure is each item's ``absent``.
- ``absent(reason)`` is the record value where nothing was counted.

The record value: ``counter`` (``callgrind`` | ``hardware``), ``event``, ``isolation``,
``cpu``, ``lowering`` (one count per counted call), optionally ``device_compiler`` or
``device_compiler_absent``, ``count_wall_s``.  Counts are never times.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import pickle
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from tlbench.harness.core.record import BenchItem

MODES = ("hardware", "subset", "all")
DEFAULT_MODE = "hardware"
DEFAULT_SUBSET = 2
KEY = "instructions"  # the record's key
CALLGRIND = "callgrind"
HARDWARE = "hardware"
CHILD_TIMEOUT_S = 3600.0

CLIENT_SOURCE = r"""
#include <valgrind/valgrind.h>
#include <valgrind/callgrind.h>
int tlbench_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
void tlbench_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void tlbench_stop(const char *name) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT(name); }
"""

CALLGRIND_ISOLATION = (
    "a child process under valgrind --tool=callgrind with instrumentation off from its start (imports, backend "
    "set-up and one uncounted cold lowering not counted); each item's cold lowering counted between "
    "CALLGRIND_START/STOP_INSTRUMENTATION client requests, the garbage collector held out, PYTHONHASHSEED=0"
)
HARDWARE_ISOLATION = (
    "perf_event_open instructions counter (user space) enabled around each timed round's call in the compile "
    "worker, inherited by the threads and processes the call starts; threads started before the call are not counted"
)


def add_options(group: Any) -> None:
    group.addoption("--tlbench-instructions", default=DEFAULT_MODE, choices=MODES,
                    help="count the instructions of compile items' cold lowering: hardware (default: a hardware "
                         "counter where the machine has one), subset / all (that, else Valgrind's callgrind on "
                         "--tlbench-instructions-subset items per backend, or on every compile item: ~50x slower "
                         "than the lowering itself)")
    group.addoption("--tlbench-instructions-subset", type=int, default=DEFAULT_SUBSET, metavar="N",
                    help=f"compile items per backend counted under callgrind with --tlbench-instructions subset "
                         f"(default {DEFAULT_SUBSET}; the same ones every run: the first N by a hash of the case id)")
    group.addoption("--tlbench-instructions-device", action="store_true", default=False,
                    help="under callgrind, also count the device compiler's processes (one more cold build per "
                         "counted item, all of it under callgrind: minutes per item)")


def absent(reason: str) -> dict[str, Any]:
    return {"absent": reason}


def host_cpu() -> str:
    """The CPU model (``/proc/cpuinfo``'s model name, else ``platform.processor()``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# -- hardware counters ---------------------------------------------------------------------

_PERF_SYSCALL = {"x86_64": 298, "aarch64": 241, "ppc64le": 319, "s390x": 331}
_PERF_TYPE_HARDWARE, _PERF_COUNT_HW_INSTRUCTIONS = 0, 1
_ATTR_SIZE = 64  # PERF_ATTR_SIZE_VER0
_FLAG_DISABLED, _FLAG_INHERIT, _FLAG_EXCLUDE_KERNEL, _FLAG_EXCLUDE_HV = 1 << 0, 1 << 1, 1 << 5, 1 << 6
_IOC_ENABLE, _IOC_DISABLE, _IOC_RESET = 0x2400, 0x2401, 0x2403


def _perf_open(inherit: bool) -> int:
    """A disabled user-space instruction counter of this thread; raises OSError."""
    number = _PERF_SYSCALL.get(platform.machine())
    if number is None:
        raise OSError(errno.ENOSYS, f"no perf_event_open syscall number known for {platform.machine()}")
    attr = bytearray(_ATTR_SIZE)
    flags = _FLAG_DISABLED | _FLAG_EXCLUDE_KERNEL | _FLAG_EXCLUDE_HV | (_FLAG_INHERIT if inherit else 0)
    attr[0:4] = _PERF_TYPE_HARDWARE.to_bytes(4, sys.byteorder)
    attr[4:8] = _ATTR_SIZE.to_bytes(4, sys.byteorder)
    attr[8:16] = _PERF_COUNT_HW_INSTRUCTIONS.to_bytes(8, sys.byteorder)
    attr[40:48] = flags.to_bytes(8, sys.byteorder)
    buf = (ctypes.c_char * _ATTR_SIZE).from_buffer(attr)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(number), buf, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_ulong(0))
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(fd)


def _ioctl(fd: int, request: int) -> None:
    import fcntl

    fcntl.ioctl(fd, request, 0)


def _read(fd: int) -> int:
    return int.from_bytes(os.read(fd, 8), sys.byteorder)


@dataclass
class HardwareCounter:
    """Two counters of this thread, one inherited by what it starts (see the module contract)."""

    own: int
    inherited: int

    @classmethod
    def open(cls) -> "HardwareCounter | str":
        try:
            own = _perf_open(inherit=False)
        except OSError as exc:
            return hardware_words(exc)
        try:
            inherited = _perf_open(inherit=True)
        except OSError as exc:
            os.close(own)
            return hardware_words(exc)
        return cls(own, inherited)

    def count(self, work: Callable[[], Any]) -> tuple[Any, tuple[int, int] | None]:
        """``work()``'s result and (instructions of this thread and its children, of the children
        alone); None where the counter would not start or stop (then ``work`` ran uncounted)."""
        try:
            try:
                for fd in (self.own, self.inherited):
                    _ioctl(fd, _IOC_RESET)
                for fd in (self.own, self.inherited):
                    _ioctl(fd, _IOC_ENABLE)
            except OSError:
                return work(), None
            result = work()
            try:
                for fd in (self.inherited, self.own):
                    _ioctl(fd, _IOC_DISABLE)
                total, own = _read(self.inherited), _read(self.own)
            except OSError:
                return result, None
            return result, (total, max(0, total - own))
        finally:
            os.close(self.own)
            os.close(self.inherited)


def hardware_words(exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    hint = ""
    if exc.errno in (errno.EACCES, errno.EPERM):
        try:
            hint = f" (kernel.perf_event_paranoid = {Path('/proc/sys/kernel/perf_event_paranoid').read_text().strip()})"
        except OSError:
            pass
    elif exc.errno == errno.ENOENT:
        hint = " (this machine or VM exposes no hardware instruction counter)"
    return f"no hardware instruction counter: perf_event_open failed with {name}: {exc.strerror}{hint}"


def hardware_reason() -> str | None:
    counter = HardwareCounter.open()
    if isinstance(counter, str):
        return counter
    os.close(counter.own)
    os.close(counter.inherited)
    return None


def hardware_record(counts: Sequence[int], children: Sequence[int], cold_build: tuple[int, int] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "counter": HARDWARE, "event": "instructions:u (PERF_COUNT_HW_INSTRUCTIONS, user space, kernel excluded)",
        "isolation": HARDWARE_ISOLATION, "cpu": host_cpu(), "lowering": list(counts),
    }
    if any(children):
        out["lowering_children"] = list(children)
    if cold_build is not None:
        out["cold_build"] = cold_build[0]
        if cold_build[1]:
            out["device_compiler"] = [cold_build[1]]
            out["device_compiler_isolation"] = "instructions of the processes and threads the cold build started (inherited counter minus this thread's own)"
    return out


# -- callgrind -----------------------------------------------------------------------------


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


_TOTALS = re.compile(r"^totals:\s+(\d+)", re.M)
_TRIGGER = re.compile(r"^desc: Trigger: Client Request: (\S+)", re.M)


def read_dump(path: Path) -> tuple[str | None, int | None]:
    """(client request name, Ir total) of one callgrind dump."""
    text = path.read_text(errors="replace")
    trigger, totals = _TRIGGER.search(text), _TOTALS.search(text)
    return (trigger.group(1) if trigger else None), (int(totals.group(1)) if totals else None)


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip() and not ln.startswith("==")]
    except OSError:
        return ""
    return " | ".join(text[-lines:])[:300]


def count_under_callgrind(request: CountRequest) -> dict[str, dict[str, Any]]:
    """See the module contract.  Never raises for the child's faults: they become ``absent``."""
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
        spec = {"sys_path": list(sys.path), "factory": request.factory, "options": dict(request.options),
                "items": list(request.items), "lib": str(lib), "device": request.device, "out_dir": str(work)}
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
            try:
                code = proc.wait(timeout=request.timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return {i: absent(f"the callgrind count ran past {request.timeout_s:g} s and was stopped") for i in ids}
        wall = time.monotonic() - start
        if code != 0 or not out.exists():
            words = f"the callgrind count child exited with {code}: {_tail(log)}"
            return {i: absent(words) for i in ids}
        return _answers(request, work, out, proc.pid, wall, valgrind_version() or "valgrind")


def _answers(request: CountRequest, work: Path, out: Path, pid: int, wall: float, version: str) -> dict[str, dict[str, Any]]:
    import json

    answer = json.loads(out.read_text())
    dumps: dict[str, int] = {}
    for path in work.glob(f"cg.{pid}.*"):
        name, total = read_dump(path)
        if name is not None and total is not None:
            dumps[name] = total
    results = {}
    for item_id, got in answer["items"].items():
        if got.get("error"):
            results[item_id] = absent(f"the counted lowering failed: {got['error']}")
            continue
        total = dumps.get(got["dump"])
        if total is None:
            results[item_id] = absent(f"callgrind wrote no dump named {got['dump']}")
            continue
        rec: dict[str, Any] = {
            "counter": CALLGRIND, "event": f"Ir (instructions executed; {version} --tool=callgrind)",
            "isolation": CALLGRIND_ISOLATION, "cpu": host_cpu(), "lowering": [total],
            "count_wall_s": got["wall_s"], "child_setup_s": answer.get("setup_s"), "child_wall_s": round(wall, 1),
        }
        if request.device:
            rec.update(_device_counts(work, got))
        results[item_id] = rec
    for item in request.items:
        results.setdefault(item.item_id, absent("the callgrind count child did not report this item"))
    return results


def _device_counts(work: Path, got: Mapping[str, Any]) -> dict[str, Any]:
    if got.get("device_error"):
        return {"device_compiler_absent": f"the counted cold build failed: {got['device_error']}"}
    files = [work / name for name in got.get("device_files") or []]
    totals = [t for t in (read_dump(p)[1] for p in files if p.exists()) if t is not None]
    if not totals:
        return {"device_compiler_absent": "the cold build started no process here (no device compiler ran)"}
    return {"device_compiler": [sum(totals)], "device_compiler_processes": len(totals),
            "device_compiler_isolation": "every process the cold build started, counted under callgrind from its own "
                                         "start (--trace-children=yes), summed; the build's own Python not counted",
            "device_wall_s": got.get("device_wall_s")}


def subset_of(items: Sequence[BenchItem], n: int) -> list[BenchItem]:
    """``n`` of ``items``, the same ones whatever else the session holds: the first ``n`` by a
    hash of the case id (a new case displaces one only if it hashes before it), in item order."""
    ranked = sorted(items, key=lambda it: hashlib.sha256(it.case.case_id.encode()).hexdigest())
    chosen = {it.item_id for it in ranked[:max(0, n)]}
    return [it for it in items if it.item_id in chosen]
