"""A whole-run move of probe-normalised compile items, told honestly.

Contract: where every compile item of a group is judged in units of the machine's speed
(each build's CPU seconds over the machine probe timed after it, pairing.py), the probe is
divided out of the numbers, so ``verdicts.run_shift`` is given no witness of its own.
``machine_moves(base, new)`` measures what the words need: the probe's real move (geometric
mean over the items of new/base median probe) and the builds' own CPU seconds' move (the
same over the median CPU seconds).  ``honest(shift, probe, cpu, effect)`` then returns the
shift with the probe's real move in its words, and a shift that is the box's load rather
than the code as ``NOISY`` (shown, never gated) with that reason: the probe moved by at least
``LOAD_PROBE_MIN`` and the probe-relative move went the other way - a loaded box slows the small pure-Python probe and the compiler unequally,
so dividing by the probe manufactures a move the builds did not make.  Told apart by: the
probe-relative move is the other way from the probe's own, and the builds' own CPU seconds
either moved the probe's way or by less than the effect.  A move the CPU seconds make
themselves against the probe (at least the effect) is left to ``run_shift``'s verdict.
``measured_differently(shift, how)``: a SHIFT of a group whose runs took their rounds another
way (round-robin over another number of items, or back to back: harness/results/compile_method.py)
is ``NOISY`` with ``how`` in its words - the item selection changed what every build met (measured
on the 2-core box: Ascend compile items round-robin over 7 read 12-18 % faster than over 14).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from typing import Iterable, Sequence

from tlbench.harness.results.verdicts import RunShift

LOAD_PROBE_MIN = 0.05  # a probe move this large between two runs is a change of the box's load


def _geomean_ratio(pairs: Iterable[tuple[Sequence[float], Sequence[float]]]) -> float | None:
    logs = []
    for base, new in pairs:
        if base and new:
            b, n = statistics.median(base), statistics.median(new)
            if b > 0 and n > 0:
                logs.append(math.log(n / b))
    return math.expm1(statistics.fmean(logs)) if logs else None


def machine_moves(records: Iterable[tuple[dict, dict]]) -> tuple[float | None, float | None]:
    """(probe move, CPU seconds move) over (base record, new record) pairs."""
    pairs = list(records)
    probe = _geomean_ratio((b.get("machine_probe_cpu_s") or (), n.get("machine_probe_cpu_s") or ()) for b, n in pairs)
    cpu = _geomean_ratio((b.get("cpu_samples_s") or (), n.get("cpu_samples_s") or ()) for b, n in pairs)
    return probe, cpu


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
