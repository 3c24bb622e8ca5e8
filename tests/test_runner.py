"""The runner's gate: which pre-compile rejections skip an item (FakeBackend, tests/fake_backend.py)."""

import fake_backend  # tests/ is on sys.path (rootdir conftest)

from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.runner import RunContext, run_item
from tlbench.harness.core.space import Rejection
from tlbench.harness.core.cases import Case, MeasurePolicy
from tile_family import TileConfig, TileProblem


class WarpRejectingFake(fake_backend.FakeBackend):
    def rejection(self, case):
        return Rejection(case.config, "warp-partition", "no valid warp partition of 128x256 over 12 warps")


def _ctx(backend):
    return RunContext(policy=MeasurePolicy(), compile_rounds=1, seed=0, compiled=lambda b, c: b.compile(c, False))


CASE = Case(TileProblem(1024, 1024, 1024), TileConfig(128, 256, 64, 384, "auto", 3))


def test_predicted_compiler_rejection_skips_by_default():
    backend = WarpRejectingFake(BackendOptions())
    outcome = run_item(BenchItem("fake", "compile", CASE), backend, _ctx(backend))
    assert outcome.status == "skipped"
    assert outcome.reason == "pruned (warp-partition): no valid warp partition of 128x256 over 12 warps"


def test_suite_can_hand_the_decision_to_the_compiler():
    backend = WarpRejectingFake(BackendOptions())
    outcome = run_item(BenchItem("fake", "compile", CASE, skip_on=("budget",)), backend, _ctx(backend))
    assert outcome.status == "timed"  # the fake compiler accepts it; a real one answers in its own words


def test_budget_always_skips():
    backend = fake_backend.FakeBackend(BackendOptions())
    big = Case(TileProblem(1024, 1024, 1024), TileConfig(256, 256, 64, 256, "auto", 4))
    outcome = run_item(BenchItem("fake", "device", big, skip_on=()), backend, _ctx(backend))
    assert outcome.status == "skipped" and "needs 262144 B, limit 232448 B" in outcome.reason


class CrashingTimer(fake_backend.FakeTimer):
    def batch(self, k):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")


class CrashingFake(fake_backend.FakeBackend):
    def timer(self, runnable, inputs, flush_l2):
        return CrashingTimer([1.0])


def test_a_crash_while_running_is_a_failed_outcome_with_its_words():
    backend = CrashingFake(BackendOptions())
    case = Case(TileProblem(1024, 1024, 1024), TileConfig(128, 128, 32, 128, "auto", 2))
    outcome = run_item(BenchItem("fake", "device", case), backend, _ctx(backend))
    assert outcome.status == "failed" and outcome.stage == "run"
    assert outcome.reason == "RuntimeError: CUDA error: an illegal memory access was encountered"


class OversizedPlanFake(fake_backend.FakeBackend):
    def compile(self, case, cold):
        compiled = super().compile(case, cold)
        compiled.plan.bytes_per_scope = {"shared.dyn": 262144}
        compiled.plan.limits = {"shared.dyn": 232448}
        return compiled


def test_a_compiled_kernel_over_the_limit_is_never_launched():
    backend = OversizedPlanFake(BackendOptions())
    case = Case(TileProblem(1024, 1024, 1024), TileConfig(128, 128, 32, 128, "auto", 2))
    outcome = run_item(BenchItem("fake", "device", case), backend, _ctx(backend))
    assert outcome.status == "skipped"
    assert outcome.reason == "over the on-chip budget: shared.dyn needs 262144 B, limit 232448 B on fake"  # the pre-compile words, naming the backend


def test_a_compile_item_over_the_limit_after_lowering_is_skipped_in_the_same_words():
    """A kernel whose family declares no footprint is checked from its compiled buffers."""
    backend = OversizedPlanFake(BackendOptions())
    case = Case(TileProblem(1024, 1024, 1024), TileConfig(128, 128, 32, 128, "auto", 2))
    outcome = run_item(BenchItem("fake", "compile", case), backend, _ctx(backend))
    assert (outcome.status, outcome.reason) == ("skipped", "over the on-chip budget: shared.dyn needs 262144 B, limit 232448 B on fake")
