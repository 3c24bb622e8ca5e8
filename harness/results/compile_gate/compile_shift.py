"""A whole-run move of probe-normalised compile items, told honestly.

Contract: builds divided by the machine probe leave ``verdicts.run_shift`` no witness; these
give it one.  ``machine_moves(pairs)``, ``load_move(pairs)``: the probe's, the CPU seconds' and
the wait for a CPU's moves.  ``honest``, ``measured_differently``: NOISY where the box's load or
the rounds' width explains it.  ``uncounted(shift)``: without a counted item, NOISY only where
the probe or the wait moved its way by enough; else it gates when slower (fail closed).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from typing import Iterable, Sequence

from ..compare.verdicts import RunShift
from ..files.record_fields import Record

LOAD_PROBE_MIN = 0.05  # a probe move this large between two runs is a change of the box's load


def _geomean_ratio(pairs: Iterable[tuple[Sequence[float], Sequence[float]]]) -> float | None:
    logs = []
    for base, new in pairs:
        if base and new:
            b, n = statistics.median(base), statistics.median(new)
            if b > 0 and n > 0:
                logs.append(math.log(n / b))
    return math.expm1(statistics.fmean(logs)) if logs else None


def machine_moves(records: Iterable[tuple[Record, Record]]) -> tuple[float | None, float | None]:
    """(probe move, CPU seconds move) over (base record, new record) pairs."""
    pairs = list(records)
    probe = _geomean_ratio((b.machine_probe_cpu_s or (), n.machine_probe_cpu_s or ()) for b, n in pairs)
    cpu = _geomean_ratio((b.cpu_samples_s or (), n.cpu_samples_s or ()) for b, n in pairs)
    return probe, cpu


def load_move(records: Iterable[tuple[Record, Record]]) -> float | None:
    """How much longer the builds waited for a CPU in new than in base (see the module contract)."""
    logs = []
    for b, n in records:
        wall_b, cpu_b, wall_n, cpu_n = (b.samples_s, b.cpu_samples_s, n.samples_s, n.cpu_samples_s)
        if wall_b and cpu_b and wall_n and cpu_n:
            values = [statistics.median(v) for v in (wall_b, cpu_b, wall_n, cpu_n)]
            if min(values) > 0:
                logs.append(math.log((values[2] / values[3]) / (values[0] / values[1])))
    return math.expm1(statistics.fmean(logs)) if logs else None


def uncounted(shift: RunShift) -> RunShift:
    """A whole-run SHIFT of compile time with no counted item in its group (see the module contract)."""
    group = f"{shift.suite}/{shift.backend}/{shift.kind}"
    probe, load = shift.vendor_change, shift.load_change
    moved = f"{group}: NOISY - the whole run's compile time moved {shift.change:+.1%} ({shift.agreeing}/{shift.items} items), no item was counted"
    unjudged = "(not judged; re-run both on a quiet box of one kind, or count instructions: --tlbench-instructions)"
    if probe is not None and (probe > 0) == (shift.change > 0) and abs(probe) >= LOAD_PROBE_MIN:
        words = (f"{moved}, and the machine probe itself moved {probe:+.1%}: the machine changed between the runs, and "
                 f"the probe does not size a changed machine's effect on the compiler {unjudged}")
        return replace(shift, verdict="NOISY", gates=False, words=words)
    if load is not None and (load > 0) == (shift.change > 0) and abs(math.log1p(load)) >= abs(math.log1p(shift.change)):
        words = (f"{moved}, and the builds' wait for a CPU (wall over CPU seconds) moved {load:+.1%}: the box's load "
                 f"changed between the runs, and load slows the compiler more than the probe {unjudged}")
        return replace(shift, verdict="NOISY", gates=False, words=words)
    if load is None:
        return replace(shift, words=f"{shift.words} (no item was counted, and the records carry no CPU seconds to tell the "
                                    "box's load from the compiler: gated, fail closed; count instructions to judge it)")
    return replace(shift, words=f"{shift.words} (no item was counted; the builds' wait for a CPU, wall over CPU seconds, "
                                f"moved {load:+.1%}: not the box's load)")


def measured_differently(shift: RunShift, how: str) -> RunShift:
    if shift.verdict != "SHIFT":
        return shift
    group = f"{shift.suite}/{shift.backend}/{shift.kind}"
    words = (f"{group}: NOISY - the whole run reads {shift.change:+.1%} ({shift.agreeing}/{shift.items} items), but {how}: "
             "the item selection changed how every build was measured (not judged; compare runs of the same selection)")
    return replace(shift, verdict="NOISY", gates=False, words=words)


def honest(shift: RunShift, probe: float | None, cpu: float | None, effect: float) -> RunShift:
    if shift.verdict == "NONE":
        return shift
    group = f"{shift.suite}/{shift.backend}/{shift.kind}"
    probe_words = f"{probe:+.1%}" if probe is not None else "an unknown amount"
    cpu_words = f"{cpu:+.1%}" if cpu is not None else "an unknown amount"
    loaded = (probe is not None and cpu is not None and abs(probe) >= LOAD_PROBE_MIN
              and (shift.change > 0) != (probe > 0)  # the probe-relative move is the other way from the probe's
              and ((cpu > 0) == (probe > 0) or abs(cpu) < effect))  # and the builds' own CPU seconds do not show it
    if loaded:
        words = (f"{group}: NOISY - the whole run reads {shift.change:+.1%} in units of the machine probe, but the probe itself "
                 f"moved {probe_words} the other way while the builds' own CPU seconds moved {cpu_words}: the box's load changed "
                 "between the runs, and load slows the small probe and the compiler unequally, so dividing by the probe made "
                 "this move (not judged; re-run both on a quiet box)")
        return replace(shift, verdict="NOISY", gates=False, vendor_change=probe, words=words)
    tail = f"the machine probe (divided out of every build) moved {probe_words}, the builds' own CPU seconds {cpu_words}"
    if shift.verdict == "SHIFT":
        direction = "slower" if shift.change > 0 else "faster"
        moved = f"{group}: the whole run is {shift.change:+.1%} ({shift.agreeing}/{shift.items} kernels {direction}, p={shift.p_value:.2g})"
        words = f"WHOLE-RUN SHIFT {moved} in units of the machine's speed; {tail}: a toolchain or harness change"
        return replace(shift, vendor_change=probe, words=words)
    return replace(shift, vendor_change=probe, words=f"{shift.words}; {tail}")
