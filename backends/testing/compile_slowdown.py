"""TEST ONLY: a genuine, sized slowdown of compiling one case (or every case).

Contract: ``TestOnlyCompileSlowdown.parse("CASE_ID:FRACTION")`` or ``"*:FRACTION"`` (the
``--tlbench-nvidia/ascend-test-only-compile-slowdown`` options of the test plugin,
backends/testing/faults.py) makes that case's cold
compile call take (1 + FRACTION) x as long: at the end of the call's headline phase (the
lowering, or the nvcc build where one runs), after t seconds of the whole call, the CPU spins
(busy, so both wall and CPU time grow) for FRACTION x t more, inside the timed phase.  It
exists for the compile-gate acceptance check (a +20 % change in one item, and every compile
1.2 x slower, as a tilelang upgrade would make it); never use it for results.
``parse_case_fraction`` reads the ``CASE_ID:FRACTION`` spec of every test-only option.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


def parse_case_fraction(spec: str, option: str, upper: float, wanted: str) -> tuple[str, float]:
    """(case id, fraction) of ``CASE_ID:FRACTION`` with 0 < FRACTION < upper, or a ValueError
    naming the option and the form it wants."""
    case_id, sep, fraction = spec.rpartition(":")
    try:
        value = float(fraction)
    except ValueError:
        value = -1.0
    if not sep or not case_id or not 0 < value < upper:
        raise ValueError(f"{option} wants {wanted}, got {spec!r}")
    return case_id, value


@dataclass(frozen=True)
class TestOnlyCompileSlowdown:
    __test__ = False
    case_id: str
    fraction: float

    @classmethod
    def parse(cls, spec: str | None, option: str = "--tlbench-<backend>-test-only-compile-slowdown") -> "TestOnlyCompileSlowdown | None":
        if not spec:
            return None
        case_id, value = parse_case_fraction(spec, option, 10, "CASE_ID:FRACTION or *:FRACTION")
        return cls(case_id, value)

    def spin_after(self, case_id: str, elapsed_s: float) -> None:
        if self.case_id not in ("*", case_id):
            return
        end = time.perf_counter() + self.fraction * elapsed_s
        while time.perf_counter() < end:
            pass
