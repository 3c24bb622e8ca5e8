"""A compile item pays the device build once and times rounds of cold lowering (runner._run_compile).

Fakes (tests/fake_backend.py) stand in for the compiler: these pin the runner's own logic,
what it calls and what the record says it timed.
"""

from dataclasses import replace

import fake_backend
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.cases import Case, MeasurePolicy
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.runner import RunContext, run_item

CASE = Case(TileProblem(1024, 1024, 1024), TileConfig(128, 128, 32, 128, "auto", 2))


class BuildingFake(fake_backend.FakeBackend):
    """Its cold compile builds a binary (handle set, 2 s); ``lower`` is the lowering alone (0.5 s)."""

    def __init__(self, options):
        super().__init__(options)
        self.calls = []

    def compile(self, case, cold):
        self.calls.append("compile")
        compiled = super().compile(case, cold)
        return replace(compiled, handle=object(), compile_seconds=2.0, phases_s={"lower_and_plan": 0.5, "build": 2.0})

    def lower(self, case):
        self.calls.append("lower")
        compiled = super().compile(case, True)
        return replace(compiled, compile_seconds=0.5, phases_s={"lower_and_plan": 0.5})


class LoweringOnlyFake(BuildingFake):
    """Has ``lower``, but its cold compile builds nothing (no device compiler here)."""

    def compile(self, case, cold):
        self.calls.append("compile")
        return fake_backend.FakeBackend.compile(self, case, cold)


def _run(backend, rounds=3):
    ctx = RunContext(policy=MeasurePolicy(), compile_rounds=rounds, seed=0, compiled=lambda b, c: b.compile(c, False))
    return run_item(BenchItem(backend.name, "compile", CASE), backend, ctx)


def test_one_cold_build_then_rounds_of_lowering_each_with_its_cpu_and_probe():
    backend = BuildingFake(BackendOptions())
    outcome = _run(backend)
    assert outcome.status == "timed"
    assert backend.calls == ["compile", "lower", "lower", "lower"]
    record = outcome.record
    assert list(outcome.samples_s) == [0.5, 0.5, 0.5]
    assert len(record["cpu_samples_s"]) == 3 and len(record["machine_probe_cpu_s"]) == 3
    assert record["cold_build_once"]["wall_s"] == 2.0 and record["cold_build_once"]["cpu_s"] >= 0
    assert record["compile_phases_s"] == {"lower_and_plan": 0.5, "build": 2.0}
    assert record["method"].startswith("cold lowering only (no device compiler), 3 round(s) after one cold build")


def test_without_a_build_every_round_is_a_cold_compile_as_before():
    backend = LoweringOnlyFake(BackendOptions())
    outcome = _run(backend)
    assert backend.calls == ["compile"] * 3
    assert "cold_build_once" not in outcome.record
    assert len(outcome.record["cpu_samples_s"]) == 3
    assert "3 round(s)" in outcome.record["method"] and "after one cold build" not in outcome.record["method"]


def test_a_backend_without_lower_builds_in_every_round():
    class NoLower(BuildingFake):
        lower = None

    backend = NoLower(BackendOptions())
    outcome = _run(backend, rounds=2)
    assert backend.calls == ["compile", "compile"]
    assert list(outcome.samples_s) == [2.0, 2.0] and "cold_build_once" not in outcome.record
