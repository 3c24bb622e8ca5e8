"""A device item's move that the SM clock of its rounds explains: the power state, not the kernel.

Contract (pure): ``round_clocks(rec)``: the SM clock (MHz) after each kept batch of the last
attempt (None under ``MIN_CLOCK_ROUNDS``); ``clock_ratio(base, new)``: new over base median
clock; ``explained(...)``: a ``ClockStep`` where the clock moved by ``CLOCK_STEP`` against the
change and the change corrected for it (time ~ 1 / clock) is under the minimum effect (the
caller makes it NOISY).  Rounds of one run share the power state, so the between-round test
cannot see it (an H200 flash-attention item read +6.3 % at a power cap, 1965 -> 1815 MHz).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

CLOCK_STEP = 0.02  # a clock step under 2 % (about 40 MHz on an H200) is read as no step
MIN_CLOCK_ROUNDS = 2  # per side, as the between-round test's rounds


def _kept_batches(rec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The batches the record's per-round medians come from: its last attempt's, dropped ones left out."""
    batches = [b for b in ((rec.get("measurement") or {}).get("batches") or []) if isinstance(b, dict)]
    last = max((int(b.get("attempt") or 0) for b in batches), default=0)
    return [b for b in batches if int(b.get("attempt") or 0) == last and not b.get("dropped")]


def round_clocks(rec: Mapping[str, Any]) -> list[float] | None:
    clocks = [float((b.get("telemetry") or {}).get("sm_clock_mhz") or 0) for b in _kept_batches(rec)]
    clocks = [c for c in clocks if c > 0]
    return clocks if len(clocks) >= MIN_CLOCK_ROUNDS else None


def clock_ratio(base: Mapping[str, Any], new: Mapping[str, Any]) -> float | None:
    b, n = round_clocks(base), round_clocks(new)
    return None if b is None or n is None else statistics.median(n) / statistics.median(b)


def _throttles(rec: Mapping[str, Any]) -> list[str]:
    seen: list[str] = []
    for b in _kept_batches(rec):
        for reason in (b.get("telemetry") or {}).get("throttle_reasons") or []:
            if reason not in seen and reason != "gpu_idle":
                seen.append(reason)
    return seen


@dataclass(frozen=True)
class ClockStep:
    base_mhz: float
    new_mhz: float
    step: float  # the item's clock ratio over its reference's, minus 1
    corrected: float  # the change after the clock step: (1 + change) x (1 + step) - 1
    relative_to_run: bool
    throttles: tuple[str, ...]

    def words(self) -> str:
        against = " against the run's other items" if self.relative_to_run else ""
        why = f" (NVML: {', '.join(self.throttles)})" if self.throttles else ""
        return (f"the SM clock read after its rounds moved {self.step:+.1%}{against} (median {self.base_mhz:.0f} -> "
                f"{self.new_mhz:.0f} MHz){why}; corrected for it the change is {self.corrected:+.1%}, under the minimum "
                "effect: the device's clock moved, not the kernel (not judged; re-run, or compare runs taken at a "
                "locked clock)")


def explained(change: float, clock: float | None, reference_clock: float | None, relative_to_run: bool,
              min_effect: float, base: Mapping[str, Any], new: Mapping[str, Any]) -> ClockStep | None:
    if clock is None or not reference_clock or clock <= 0:
        return None
    step = clock / reference_clock - 1
    if abs(step) < CLOCK_STEP or (step > 0) == (change > 0):
        return None
    corrected = (1 + change) * (1 + step) - 1
    if abs(corrected) >= min_effect:
        return None
    b, n = round_clocks(base) or [0.0], round_clocks(new) or [0.0]
    throttles = tuple(dict.fromkeys(_throttles(base) + _throttles(new)))
    return ClockStep(statistics.median(b), statistics.median(n), step, corrected, relative_to_run, throttles)


def group_clock(ratios: Sequence[float | None]) -> float | None:
    """The median clock ratio of a group's items (what a run-relative change is relative to)."""
    known = [r for r in ratios if r]
    return statistics.median(known) if known else None
