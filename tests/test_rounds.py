"""The one measurement loop (harness/measure/rounds.py) on the named FakeBackend
(tests/fake_backend.py): round-robin order, per-round medians and vendor ratios, stopping
criteria and caps, drift with one re-measurement, throttled batches, failure isolation."""

import fake_backend  # tests/ is on sys.path (rootdir conftest)
import pytest

from tlbench.harness.core.backend_api import BackendOptions
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.cases import Case, MeasurePolicy, VendorCase
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.device_session import InProcessSession
from tlbench.harness.measure.outcome import RunContext
from tlbench.harness.measure.rounds import measure_items

PROBLEM = TileProblem(1024, 1024, 1024)


def _item(block_n, stages=2):
    return BenchItem("fake", "device", Case(PROBLEM, TileConfig(128, block_n, 32, 128, "auto", stages)))


VENDOR = BenchItem("fake", "device", VendorCase(PROBLEM))


class ScriptedFake(fake_backend.FakeBackend):
    """FakeBackend whose timers play a per-case script: ``script[case_id](call_index) -> seconds``
    and whose telemetry per batch comes from ``clock(batch_index)``; it logs every batch."""

    def __init__(self, script, clock=None):
        super().__init__(BackendOptions())
        self.script, self.clock, self.log = script, clock, []

    def timer(self, runnable, inputs, flush_l2):
        return _ScriptTimer(self, runnable.case_id if isinstance(runnable, VendorCase) else runnable.case.case_id)


class _ScriptTimer(fake_backend.FakeTimer):
    def __init__(self, backend, case_id):
        super().__init__([1.0])
        self.backend, self.case_id, self.calls, self.batches = backend, case_id, 0, 0

    def batch(self, k):
        self.backend.log.append((self.case_id, k))
        out = [self.backend.script[self.case_id](self.calls + i) for i in range(k)]
        self.calls += k
        self.batches += 1
        return out

    def telemetry(self):
        if self.backend.clock is None:
            return None
        return {"sm_clock_mhz": self.backend.clock(len(self.backend.log)), "sm_clock_max_mhz": 1980}


def _run(backend, items, **policy):
    ctx = RunContext(policy=MeasurePolicy(**{"clock_warmup_s": 0.0, "warmup": 0, **policy}), compile_rounds=1, seed=0,
                     compiled=lambda b, c: b.compile(c, False))
    return measure_items(InProcessSession(backend, ctx), items, ctx.policy, sleep=lambda s: None)


def steady(value, wobble=1e-4):
    return lambda i: value * (1 + wobble * (i % 3))


A, B = _item(128), _item(64)


def test_round_robin_interleaves_items_and_rotates_the_order():
    backend = ScriptedFake({A.case.case_id: steady(1e-3), B.case.case_id: steady(2e-3), VENDOR.case.case_id: steady(0.5e-3)})
    outs = _run(backend, [A, B, VENDOR], rounds=3, batch=10, criterion="fixed:samples=30")
    timed = [c for c, k in backend.log if k == 10][2:]  # after the two clock-warmup batches of A
    assert timed == [A.case.case_id, B.case.case_id, VENDOR.case.case_id,
                     B.case.case_id, VENDOR.case.case_id, A.case.case_id,
                     VENDOR.case.case_id, A.case.case_id, B.case.case_id]
    rec = outs[0].record
    m = rec["measurement"]
    assert len(rec["samples_s"]) == 30 and len(m["round_medians_s"]) == 3 and m["interleaved"] is True
    assert m["vs_vendor_rounds"] == pytest.approx([2.0, 2.0, 2.0], rel=1e-3)
    assert m["criterion"] == {"name": "fixed", "params": {"samples": 30}, "met": True, "value": 30.0}
    assert rec["summary"]["status"] == "clean" and m["drift"] is None
    assert outs[2].record["measurement"]["vs_vendor_rounds"] is None  # the vendor item itself


def test_no_interleave_measures_one_item_after_another():
    backend = ScriptedFake({A.case.case_id: steady(1e-3), B.case.case_id: steady(2e-3)})
    _run(backend, [A, B], rounds=2, batch=5, interleave=False, criterion="fixed:samples=10")
    timed = [c for c, k in backend.log if k == 5][2:]
    assert timed == [A.case.case_id, A.case.case_id, B.case.case_id, B.case.case_id]


def test_rounds_continue_until_the_criterion_is_met():
    # +-30 % around the same median for the first 80 calls (20 go to the clock warmup), then
    # steady: median-ci cannot pin the median in the 3 minimum rounds and asks for more
    noisy_then_steady = lambda i: 1e-3 * ((1.3 if (i // 2) % 2 else 0.7) if i < 80 else 1.0)  # noqa: E731
    backend = ScriptedFake({A.case.case_id: noisy_then_steady})
    out = _run(backend, [A], rounds=3, batch=10, criterion="median-ci:rel=0.005")[0]
    assert out.record["measurement"]["stopped_by"] == "criterion" and out.record["summary"]["status"] == "clean"
    assert len(out.record["samples_s"]) > 30 and out.record["measurement"]["remeasured"] is False


def test_an_item_that_never_meets_its_criterion_is_capped_and_says_so():
    alternating = lambda i: 1e-3 * (1.5 if i % 2 else 1.0)  # noqa: E731
    backend = ScriptedFake({A.case.case_id: alternating})
    out = _run(backend, [A], rounds=3, batch=10, max_samples=60, criterion="stdrel:max_noise=0.01")[0]
    rec = out.record
    assert rec["summary"]["status"] == "CAPPED" and rec["measurement"]["stopped_by"] == "max_samples"
    assert len(rec["samples_s"]) == 60
    assert any(n.startswith("CAPPED: stopped at the 60-sample cap before the stdrel criterion") for n in rec["notes"])


def test_a_level_shift_is_remeasured_once_and_a_clean_remeasurement_is_kept():
    # calls 0-39 run 6 % fast (20 warm the clock, 20 are the first two rounds), then steady:
    # the machine shifted inside the item
    shifted = lambda i: 1e-3 * (0.94 if i < 40 else 1.0)  # noqa: E731
    backend = ScriptedFake({A.case.case_id: shifted, VENDOR.case.case_id: steady(0.5e-3)})
    outs = _run(backend, [A, VENDOR], rounds=4, batch=10, criterion="fixed:samples=40")
    m = outs[0].record["measurement"]
    assert m["remeasured"] is True and m["first_attempt_drift"]["kind"] == "shift"
    assert m["drift"] is None and outs[0].record["summary"]["status"] == "clean"
    assert outs[0].record["summary"]["median"] == pytest.approx(1e-3, rel=1e-3)
    assert outs[1].record["measurement"]["remeasured"] is True  # its vendor item, to keep rounds paired
    assert len(m["vs_vendor_rounds"]) == 4
    assert any("re-measured once: the first attempt drifted (level shift" in n for n in outs[0].record["notes"])


def test_drift_that_persists_is_marked_drift():
    climbing = lambda i: 1e-3 * (1 + 0.01 * (i // 10))  # noqa: E731  +1 % a batch, for ever
    backend = ScriptedFake({A.case.case_id: climbing})
    out = _run(backend, [A], rounds=6, batch=10, criterion="fixed:samples=60")[0]
    rec = out.record
    assert rec["summary"]["status"] == "DRIFT" and rec["measurement"]["drift"]["kind"] == "trend"
    assert any(n.startswith("DRIFT: trend: batch medians climb") for n in rec["notes"])


def test_a_throttled_batch_is_discarded_and_retaken():
    # the clock reads 1980 MHz except on the 4th batch overall (2 warm the clock; so round 2's), where it reads 1000 MHz
    backend = ScriptedFake({A.case.case_id: steady(1e-3)}, clock=lambda n: 1000 if n == 4 else 1980)
    out = _run(backend, [A], rounds=3, batch=10, criterion="fixed:samples=30")[0]
    m = out.record["measurement"]
    assert [b["discarded_before"] for b in m["batches"]] == [0, 1, 0]
    assert all(b["telemetry"]["sm_clock_mhz"] == 1980 for b in m["batches"])
    assert any("1 batch(es) discarded, SM clock below 90% of the warm 1980 MHz" in n for n in out.record["notes"])


def test_a_crash_fails_only_its_item_and_a_wrong_result_is_never_timed():
    def crash(i):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    wrong = _item(8)  # the fake's check fails block_N == 8
    backend = ScriptedFake({A.case.case_id: crash, B.case.case_id: steady(2e-3)})
    outs = _run(backend, [A, B, wrong], rounds=2, batch=5, criterion="fixed:samples=10")
    assert outs[0].status == "failed" and outs[0].stage == "run"
    assert outs[0].reason == "RuntimeError: CUDA error: an illegal memory access was encountered"
    assert outs[1].status == "timed" and len(outs[1].samples_s) == 10
    assert outs[2].status == "failed" and outs[2].stage == "check"
    assert all(c != wrong.case.case_id for c, _ in backend.log)
