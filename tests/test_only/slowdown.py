"""TEST ONLY: a genuine, sized slowdown of one kernel under its own case id.

Contract: ``TestOnlySlowdown.parse("CASE_ID:FRACTION")`` (the ``--tlbench-nvidia-test-only-slowdown``
option of the test plugin, tests/test_only/faults.py) makes the timed call of that one case run one extra kernel after the real one: an
in-place ``add_`` over a float32 scratch buffer (a different kernel name from the L2
flush's fill, so CUPTI counts it as part of the call).  Sizing, once per case at
``wrap``: the kernel's own time t (median of 5 CUDA-event calls) and the device's
elementwise rate r (bytes per second of ``add_`` over 256 MiB, median of 5) give a buffer
of FRACTION x t x r bytes, so the call takes about (1 + FRACTION) x t.  The record's notes
say it was applied, and its size.  It exists for the acceptance check that a real ~5 %
slowdown is caught by ``tlbench compare``; never use it for results.  torch is imported in ``wrap``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable

from test_only.compile_slowdown import parse_case_fraction

PROBE_BYTES = 256 * 2**20


def _event_median(fn: Callable[[], None], calls: int = 5) -> float:
    import torch

    times = []
    for _ in range(calls):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    return statistics.median(times)


@dataclass(frozen=True)
class TestOnlySlowdown:
    __test__ = False  # not a pytest class
    case_id: str
    fraction: float

    @classmethod
    def parse(cls, spec: str | None) -> "TestOnlySlowdown | None":
        if not spec:
            return None
        case_id, value = parse_case_fraction(spec, "--tlbench-nvidia-test-only-slowdown", 1,
                                             "CASE_ID:FRACTION with 0 < FRACTION < 1")
        return cls(case_id, value)

    def wrap(self, case_id: str, run: Callable[[], None], device: Any) -> tuple[Callable[[], None], str | None]:
        if case_id != self.case_id:
            return run, None
        import torch

        kernel_s = _event_median(run)
        probe = torch.zeros(PROBE_BYTES // 4, dtype=torch.float32, device=device)
        rate = PROBE_BYTES / _event_median(lambda: probe.add_(1.0))
        del probe
        nbytes = max(4, int(self.fraction * kernel_s * rate) // 4 * 4)
        scratch = torch.zeros(nbytes // 4, dtype=torch.float32, device=device)

        def slowed() -> None:
            run()
            scratch.add_(1.0)

        words = (
            f"TEST-ONLY SLOWDOWN applied: one extra add_ kernel over {nbytes} B after each call, "
            f"sized for +{self.fraction:.1%} of the kernel's {kernel_s * 1e3:.4g} ms at {rate / 1e9:.0f} GB/s"
        )
        return slowed, words

