"""TEST ONLY: a genuine, sized slowdown of compiling one case (or every case).

Contract: ``TestOnlyCompileSlowdown.parse("CASE_ID:FRACTION")`` or ``"*:FRACTION"`` (the
``--tlbench-nvidia/ascend-test-only-compile-slowdown`` options of the test plugin,
tests/test_only/faults.py) makes that case's cold
compile call take (1 + FRACTION) x as long: at the end of the call's headline phase (the
lowering, or the nvcc build where one runs), after t seconds of the whole call, the CPU spins
(busy, so both wall and CPU time grow) for FRACTION x t more, inside the timed phase.  It
exists for the compile-gate acceptance check (a +20 % change in one item, and every compile
1.2 x slower, as a tilelang upgrade would make it); never use it for results.
``parse_case_fraction`` reads the ``CASE_ID:FRACTION`` spec of every test-only option.
``TestOnlyLoweringChanges`` (extra lowering work, pass configs, a num_stages override of one
case) is given only through the test plug-in tests/test_only/compile_changes.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any


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


def extra_work(iterations: int) -> int:
    """TEST ONLY: ``iterations`` rounds of fixed integer arithmetic in pure Python, the same
    instructions every time (``TestOnlyLoweringChanges``'s extra lowering work)."""
    total = 0
    for i in range(iterations):
        total += (i * i) % 7
    return total


@dataclass(frozen=True)
class TestOnlyLoweringChanges:
    """TEST ONLY: changes of one case's lowering, under its own case id, for the acceptance checks
    of the instruction-count and plan verdicts.  Given only through the test plug-in
    ``-p test_only.compile_changes`` (tests/test_only/compile_changes.py), which
    puts them in the backend options:

    - ``test_only_extra_lowering_work`` ``CASE_ID:ITERATIONS``: ``extra_work(ITERATIONS)`` inside
      the timed lowering (after tilelang's passes, before the phase's clock stops);
    - ``test_only_pass_config`` ``CASE_ID:KEY=VALUE[,KEY=VALUE]``: tilelang pass configs added to
      the case's own (e.g. ``tl.disable_warp_specialized=true``, ``tl.disable_tma_lower=true``);
    - ``test_only_num_stages`` ``CASE_ID:N``: the body built with ``num_stages=N``.

    ``CASE_ID`` may be ``BACKEND/CASE_ID`` (one backend's case: both backends have cases of the
    same id) or ``*``.  Every plan lowered with one says so under ``features["test_only"]``."""

    __test__ = False
    extra: tuple[str, int] | None = None
    pass_config: tuple[str, tuple[tuple[str, Any], ...]] | None = None
    num_stages: tuple[str, int] | None = None
    backend: str = ""  # the backend applying them (a BACKEND/CASE_ID spec matches that backend only)

    @classmethod
    def from_options(cls, options: Any, backend: str = "") -> "TestOnlyLoweringChanges | None":
        extra, passes, stages = (options.get(k) for k in ("test_only_extra_lowering_work", "test_only_pass_config",
                                                           "test_only_num_stages"))
        if not (extra or passes or stages):
            return None
        return cls(_case_int(extra, "--tlbench-test-only-extra-lowering-work", "CASE_ID:ITERATIONS") if extra else None,
                   _case_configs(passes) if passes else None,
                   _case_int(stages, "--tlbench-test-only-num-stages", "CASE_ID:N") if stages else None, backend)

    def _for(self, spec: tuple[str, Any] | None, case_id: str) -> Any:
        return spec[1] if spec is not None and spec[0] in ("*", case_id, f"{self.backend}/{case_id}") else None

    def work(self, case_id: str) -> None:
        iterations = self._for(self.extra, case_id)
        if iterations:
            extra_work(iterations)

    def pass_configs(self, case_id: str, configs: dict[str, Any] | None) -> dict[str, Any] | None:
        added = self._for(self.pass_config, case_id)
        return {**(configs or {}), **dict(added)} if added else configs

    def config(self, case: Any) -> Any:
        stages = self._for(self.num_stages, case.case_id)
        if stages is None:
            return case.config
        if hasattr(case.config, "with_value"):  # a config a suite declared through kernel_sweep
            return case.config.with_value("num_stages", stages)
        return replace(case.config, num_stages=stages)

    def words(self, case_id: str) -> str | None:
        parts = []
        if self._for(self.extra, case_id):
            parts.append(f"{self._for(self.extra, case_id)} iterations of extra lowering work")
        if self._for(self.pass_config, case_id):
            parts.append("pass configs " + ", ".join(f"{k}={v}" for k, v in self._for(self.pass_config, case_id)))
        if self._for(self.num_stages, case_id) is not None:
            parts.append(f"lowered with num_stages={self._for(self.num_stages, case_id)}")
        return "TEST ONLY: " + "; ".join(parts) if parts else None


def _case_int(spec: str, option: str, wanted: str) -> tuple[str, int]:
    case_id, sep, value = spec.rpartition(":")
    if not sep or not case_id or not value.isdigit():
        raise ValueError(f"{option} wants {wanted} (a whole number), got {spec!r}")
    return case_id, int(value)


def _value(text: str) -> Any:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text.strip()


def _case_configs(spec: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    case_id, sep, pairs = spec.partition(":")
    items = [p.partition("=") for p in pairs.split(",") if p.strip()]
    if not sep or not case_id or not items or any(not eq or not key.strip() for key, eq, _ in items):
        raise ValueError(f"--tlbench-test-only-pass-config wants CASE_ID:KEY=VALUE[,KEY=VALUE], got {spec!r}")
    return case_id, tuple((key.strip(), _value(value)) for key, _, value in items)
