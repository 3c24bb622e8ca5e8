"""Which CPUs do what when compile work runs beside device timing; nothing here measures.

Contract: ``CpuPlan.split(usable, device_workers, siblings_of, min_compile)`` gives each device
worker the highest free CPU and its SMT siblings, the rest to compile work (None: too few).
``pin`` / ``renice`` act on every thread of a process; ``*_from_environment`` read the
``TLBENCH_*`` variables; ``parse`` / ``describe`` "0-3,8"; ``resolve_jobs`` (ValueError).
"""

from __future__ import annotations

import os
from itertools import groupby
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

ENV_CPUS = "TLBENCH_CPUS"  # a worker pins itself (all its threads) to these as it starts
ENV_BUILD_CPUS = "TLBENCH_BUILD_CPUS"  # a device worker's build children go here (its own CPUs are for timing)
ENV_NICE = "TLBENCH_NICE"  # a worker's nice value, set as it starts (compile jobs of an overlapped run)
COMPILE_NICE = 10  # compile-job workers beside device timing yield their CPUs to the device phase's builds


def sysfs_siblings(cpu: int) -> tuple[int, ...]:
    """The CPUs sharing ``cpu``'s core (its SMT siblings and itself); (cpu,) where sysfs says nothing."""
    try:
        with open(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list") as stream:
            return tuple(sorted(parse(stream.read())))
    except (OSError, ValueError):
        return (cpu,)


def parse(text: str) -> set[int]:
    """"0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11} (raises ValueError on anything else)."""
    out: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high or low) + 1))
    return out


def describe(cpus: Iterable[int]) -> str:
    consecutive = groupby(enumerate(sorted(set(cpus))), lambda p: p[1] - p[0])
    runs = [[c for _, c in run] for _, run in consecutive]
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


@dataclass(frozen=True)
class CpuPlan:
    device: Mapping[str, tuple[int, ...]]  # device worker key -> its CPUs
    compile: tuple[int, ...]  # everything else's CPUs

    @classmethod
    def split(cls, usable: Sequence[int], device_workers: Sequence[str],
              siblings_of: Callable[[int], Sequence[int]] = sysfs_siblings, min_compile: int = 2) -> "CpuPlan | None":
        free = sorted(set(usable))
        device: dict[str, tuple[int, ...]] = {}
        for key in device_workers:
            if not free:
                return None
            cpu = free[-1]
            core = tuple(sorted({cpu, *(c for c in siblings_of(cpu) if c in free)}))
            device[key] = core
            free = [c for c in free if c not in core]
        if not device_workers or len(free) < max(1, min_compile):
            return None
        return cls(device, tuple(free))

    def words(self) -> str:
        devices = "; ".join(f"{key} on CPU {describe(cpus)}" for key, cpus in self.device.items())
        return f"device workers: {devices}; compile work on CPUs {describe(self.compile)}"


def _each_thread(pid: int, act: Callable[[int], None]) -> None:
    """``act(tid)`` for every thread of ``pid`` (0: this one), passing over what fails."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid or 'self'}/task")]
    except OSError:
        tids = [pid]
    for tid in tids:
        try:
            act(tid)
        except (ProcessLookupError, PermissionError):
            continue


def pin(cpus: Iterable[int], pid: int = 0) -> None:
    cpus = set(cpus)
    _each_thread(pid, lambda tid: os.sched_setaffinity(tid, cpus))


def pin_from_environment(environ: Mapping[str, str] | None = None) -> set[int] | None:
    """Pin this process to ``$TLBENCH_CPUS`` when it is set (a worker's first act); the set, or None."""
    text = (os.environ if environ is None else environ).get(ENV_CPUS, "").strip()
    if not text or not hasattr(os, "sched_setaffinity"):
        return None
    cpus = parse(text)
    pin(cpus)
    return cpus


def renice(nice: int, pid: int = 0) -> None:
    if hasattr(os, "setpriority"):
        _each_thread(pid, lambda tid: os.setpriority(os.PRIO_PROCESS, tid, nice))


def nice_from_environment(environ: Mapping[str, str] | None = None) -> int | None:
    """Take ``$TLBENCH_NICE`` when it is set (a whole number; anything else raises ValueError)."""
    text = (os.environ if environ is None else environ).get(ENV_NICE, "").strip()
    if not text:
        return None
    try:
        nice = int(text)
    except ValueError:
        raise ValueError(f"{ENV_NICE}={text!r}: give a whole number (a nice value, e.g. {COMPILE_NICE})") from None
    renice(nice)
    return nice


def build_cpus_from_environment(environ: Mapping[str, str] | None = None) -> set[int] | None:
    text = (os.environ if environ is None else environ).get(ENV_BUILD_CPUS, "").strip()
    return parse(text) if text else None


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_jobs(text: str, cpus: int, in_xdist_worker: bool, isolated: bool) -> int:
    """``--tlbench-compile-jobs``: N, or ``auto`` (half of 8+ CPUs; 1 in xdist or in-process)."""
    text = str(text).strip().lower()
    if text == "auto":
        if in_xdist_worker or not isolated or cpus < 8:
            return 1
        return cpus // 2
    try:
        jobs = int(text)
    except ValueError:
        raise ValueError(f"--tlbench-compile-jobs takes a positive integer or 'auto', got {text!r}") from None
    if jobs < 1:
        raise ValueError(f"--tlbench-compile-jobs must be >= 1 (1 times compile items one by one), got {jobs}")
    if jobs > 1 and not isolated:
        raise ValueError("--tlbench-compile-jobs > 1 needs worker processes: drop --tlbench-isolation inprocess, or use 1")
    return jobs
