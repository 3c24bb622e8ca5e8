"""A compile item's builds in both runs, as the values the compile gate compares.

Contract, over one item's base and new records as written: ``probe_normalised``,
``normalised_pair`` / ``values_normalised`` (builds over the machine probe, where every build
used at least a probe's worth of CPU), ``compile_values(base, new) -> (base, new, centre)``
(normalised, else CPU, else wall seconds) and ``compile_centre`` (``median`` or ``min``).
"""

from __future__ import annotations

import statistics
from typing import Any, Mapping, Sequence


def round_robin(rec: Mapping[str, Any]) -> bool:
    """The item's rounds were taken round-robin with other items (harness/measure/runner.py):
    a pass apart, so each round met its own moment of the machine."""
    return int(rec.get("compile_round_robin") or 0) > 1


def probe_normalised(rec: Mapping[str, Any], per_build: bool | None = None) -> list[float] | None:
    """Each build's CPU seconds over the machine probe timed after it (rounds taken round-robin:
    independent moments), or over the item's fastest probe (back to back: build by build made
    the minimum pick slow probes, an A/A spread of 18 % against 5 %)."""
    cpu, probe = rec.get("cpu_samples_s"), rec.get("machine_probe_cpu_s")
    if not cpu or not probe or len(cpu) != len(probe) or min(probe) <= 0:
        return None
    if round_robin(rec) if per_build is None else per_build:
        return [c / p for c, p in zip(cpu, probe)]
    fastest = min(probe)
    return [c / fastest for c in cpu]


def normalised_pair(base_rec: Mapping[str, Any], new_rec: Mapping[str, Any]) -> tuple[list[float], list[float]] | None:
    """Both runs' probe-normalised builds, where both have them and every build used at least
    one probe's worth of CPU: below that (a compile that only waited, or was served from
    memory) process CPU accounting is noise, not the compiler's work."""
    per_build = round_robin(base_rec) and round_robin(new_rec)
    base, new = probe_normalised(base_rec, per_build), probe_normalised(new_rec, per_build)
    if base is None or new is None or min(base) < 1.0 or min(new) < 1.0:
        return None
    return base, new


def values_normalised(base_rec: Mapping[str, Any], new_rec: Mapping[str, Any]) -> bool:
    """Both runs' builds can be put in units of the machine's speed (``normalised_pair``)."""
    return normalised_pair(base_rec, new_rec) is not None


def _has_probe(rec: Mapping[str, Any]) -> bool:
    return bool(rec.get("machine_probe_cpu_s"))


def compile_values(base: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[list[float], list[float], str]:
    """Per build: CPU seconds in units of the machine's speed (``normalised_pair``); CPU
    seconds where the runs recorded no probe (older records); else wall seconds.  With the
    statistic that summarises them (``compile_centre``)."""
    normalised = normalised_pair(base, new)
    if normalised is not None:
        return normalised[0], normalised[1], compile_centre(base, new)
    if base.get("cpu_samples_s") and new.get("cpu_samples_s") and not (_has_probe(base) or _has_probe(new)):
        return list(base["cpu_samples_s"]), list(new["cpu_samples_s"]), "min"
    return list(base["samples_s"]), list(new["samples_s"]), "min"


def compile_centre(base_rec: Mapping[str, Any], new_rec: Mapping[str, Any]) -> str:
    """``median`` where both runs took their rounds round-robin over their own probes: the
    noise left is two-sided (A/A robust SD 2-3 %, against 4-7 % for the minimum); ``min``
    otherwise (asv's rule: load only ever adds time to a build)."""
    normalised = probe_normalised(base_rec) is not None and probe_normalised(new_rec) is not None
    return "median" if normalised and round_robin(base_rec) and round_robin(new_rec) else "min"


def centre_of(values: Sequence[float], centre: str) -> float:
    """The centre ``compile_centre`` named: the median, or the minimum."""
    return statistics.median(values) if centre == "median" else min(values)
