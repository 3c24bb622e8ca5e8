"""The hardware instruction counter of this thread, where the machine has one (``perf_event_open``).

Contract: ``HardwareCounter.open()``: the counter, or a one-line reason; ``count(work)``: the result
and (total, children) instructions, or None where the counter failed.  ``hardware_reason()``: None
where a counter opens; ``hardware_record(...)``: a ``record["instructions"]``.  Linux only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from .instructions import HARDWARE, host_cpu

HARDWARE_ISOLATION = (
    "perf_event_open instructions counter (user space) enabled around each timed round's call in the compile "
    "worker, inherited by the threads and processes the call starts; threads started before the call are not counted"
)
_PERF_SYSCALL = {"x86_64": 298, "aarch64": 241, "ppc64le": 319, "s390x": 331}
_PERF_TYPE_HARDWARE, _PERF_COUNT_HW_INSTRUCTIONS = 0, 1
_ATTR_SIZE = 64  # PERF_ATTR_SIZE_VER0
_FLAG_DISABLED, _FLAG_INHERIT, _FLAG_EXCLUDE_KERNEL, _FLAG_EXCLUDE_HV = 1 << 0, 1 << 1, 1 << 5, 1 << 6
_IOC_ENABLE, _IOC_DISABLE, _IOC_RESET = 0x2400, 0x2401, 0x2403


def _perf_open(inherit: bool) -> int:
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
        """``work()``'s result and (total, children) instructions; None where the counter failed."""
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


def hardware_record(counts: Sequence[int], children: Sequence[int],
                    cold_build: tuple[int, int] | None) -> dict[str, object]:
    out: dict[str, object] = {
        "counter": HARDWARE, "event": "instructions:u (PERF_COUNT_HW_INSTRUCTIONS, user space, kernel excluded)",
        "isolation": HARDWARE_ISOLATION, "cpu": host_cpu(), "lowering": list(counts)}
    if any(children):
        out["lowering_children"] = list(children)
    if cold_build is not None:
        out["cold_build"] = cold_build[0]
        if cold_build[1]:
            out["device_compiler"] = [cold_build[1]]
            out["device_compiler_isolation"] = "instructions of the processes and threads the cold build started (inherited counter minus this thread's own)"
    return out
