"""Compile work beside device timing: whether a run overlaps them, and with what kept apart.

Contract: ``decide(mode, timeable, compiling, usable, device_workers, siblings_of)`` returns an
``Overlap`` (``on``, ``reason``, ``plan``, ``note(kind, compiles_beside)``): ``off`` never; ``auto``
when both kinds run and the CPU split leaves ``AUTO_MIN_COMPILE_CPUS``; ``on`` with one CPU enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .cpu_plan import COMPILE_NICE, CpuPlan, describe, sysfs_siblings

MODES = ("auto", "on", "off")
AUTO_MIN_COMPILE_CPUS = 4


@dataclass(frozen=True)
class Overlap:
    on: bool
    reason: str
    plan: CpuPlan | None = None
    timeable: tuple[str, ...] = ()

    def note(self, kind: str, compiles_beside: Sequence[str] = ()) -> dict | None:
        if not self.on or self.plan is None:
            return None
        device = {key: describe(cpus) for key, cpus in self.plan.device.items()}
        if kind == "device":
            return {"beside": "compile items and kernel builds, on other CPUs", "device_worker_cpus": device,
                    "compile_cpus": describe(self.plan.compile)}
        beside = f"device timing of {', '.join(self.timeable)}"
        if compiles_beside:
            beside += f" and the compile items of {', '.join(compiles_beside)}"
        return {"beside": beside, "compile_cpus": describe(self.plan.compile),
                "device_worker_cpus": device, "compile_nice": COMPILE_NICE}


def decide(mode: str, timeable: Sequence[str], compiling: Sequence[str], usable: Sequence[int],
           device_workers: Sequence[str], siblings_of: Callable[[int], Sequence[int]] = sysfs_siblings) -> Overlap:
    if mode not in MODES:
        raise ValueError(f"--tlbench-overlap takes {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return Overlap(False, "off (--tlbench-overlap off): compile items and device timing one after another")
    if not timeable:
        return Overlap(False, "no device timing here: nothing to overlap")
    if not compiling:
        return Overlap(False, "no compile items: nothing to overlap")
    least = 1 if mode == "on" else AUTO_MIN_COMPILE_CPUS
    plan = CpuPlan.split(usable, device_workers, siblings_of, min_compile=least)
    if plan is None:
        return Overlap(False, f"{len(usable)} usable CPUs: too few to keep {len(device_workers)} device worker(s) apart "
                              f"and leave {least} to compile work; one phase after another")
    return Overlap(True, f"compile items of {', '.join(compiling)} beside device timing of {', '.join(timeable)}; "
                         + plan.words(), plan, tuple(timeable))
