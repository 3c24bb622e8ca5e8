"""Compile items timed round-robin (harness/measure/runner.py::run_compile_items).

The order of the cold calls is read from the named fake backend's compile log
(``TLBENCH_FAKE_COMPILE_LOG``, tests/fake_backend.py): each pass takes one cold round of
every item, so an item's rounds are a pass apart; the collector is off inside every timed
call and back on after.  In-process (unit) and through real pytest runs with worker
processes (jobs 1 and 2, a compiler segfault costing only its item) and ``inprocess``.
"""

import gc
import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

import fake_backend
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.cases import Case, MeasurePolicy
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.compile_phase import CompilePhase, balanced_shares
from tlbench.harness.measure.outcome import Outcome, RunContext
from tlbench.harness.measure.runner import run_compile_items


def _item(n: int, k: int = 32) -> BenchItem:
    return BenchItem("fake", "compile", Case(TileProblem(1024, 1024, 1024), TileConfig(128, n, k, 128, "auto", 2)))


def _ctx(rounds: int) -> RunContext:
    return RunContext(policy=MeasurePolicy(), compile_rounds=rounds, seed=0, compiled=lambda b, c: None)


def _log(path) -> list[tuple[str, str, str]]:
    """(case id, cold, gc) per compile call, in order."""
    rows = []
    for line in path.read_text().splitlines():
        case, cold, collector, *_where = line.split()
        rows.append((case, cold, collector))
    return rows


def test_each_pass_takes_one_cold_round_of_every_item_with_the_collector_off(tmp_path, monkeypatch):
    log = tmp_path / "compiles.log"
    monkeypatch.setenv("TLBENCH_FAKE_COMPILE_LOG", str(log))
    items = [_item(n) for n in (16, 32, 64)]
    assert gc.isenabled()
    outcomes = run_compile_items(items, fake_backend.FakeBackend(BackendOptions({})), _ctx(3))
    assert gc.isenabled() and gc.get_freeze_count() == 0  # restored after the rounds, nothing left frozen
    ids = [i.case.case_id for i in items]
    assert [case for case, _, _ in _log(log)] == ids * 3  # a, b, c, a, b, c, a, b, c: never one item's rounds back to back
    assert {(cold, collector) for _, cold, collector in _log(log)} == {("cold=True", "gc=False")}
    assert [o.status for o in outcomes] == ["timed"] * 3
    for o in outcomes:
        assert len(o.samples_s) == len(o.record["cpu_samples_s"]) == len(o.record["machine_probe_cpu_s"]) == 3
        assert len(o.record["collector_s"]) == 3
        assert o.record["compile_round_robin"] == 3 and "round-robin over 3 items" in o.record["method"]


def test_one_item_alone_is_the_plain_serial_record(tmp_path, monkeypatch):
    (outcome,) = run_compile_items([_item(16)], fake_backend.FakeBackend(BackendOptions({})), _ctx(2))
    assert outcome.status == "timed" and len(outcome.samples_s) == 2
    assert "compile_round_robin" not in outcome.record and "round-robin" not in outcome.record["method"]


class LoweringFake(fake_backend.FakeBackend):
    """TEST-ONLY: a fake whose cold compile builds a binary and that can lower alone (as the
    NVIDIA backend where nvcc is present): the first pass pays each item's one build."""

    def __init__(self, options, calls):
        super().__init__(options)
        self.calls = calls

    def compile(self, case, cold):
        self.calls.append(("build", case.case_id))
        return replace(super().compile(case, cold), handle=object())

    def lower(self, case):
        self.calls.append(("lower", case.case_id))
        return super().compile(case, True)


def test_the_one_cold_build_of_each_item_comes_first_then_passes_of_lowerings():
    calls: list = []
    items = [_item(16), _item(32)]
    outcomes = run_compile_items(items, LoweringFake(BackendOptions({}), calls), _ctx(3))
    a, b = (i.case.case_id for i in items)
    assert calls == [("build", a), ("build", b)] + [("lower", a), ("lower", b)] * 3
    assert all(len(o.samples_s) == 3 and "cold_build_once" in o.record for o in outcomes)


def test_a_compile_error_fails_its_item_alone_and_leaves_the_passes():
    items = [_item(16), _item(32, k=7), _item(64)]  # block_K 7: the fake compiler's CompileError
    outcomes = run_compile_items(items, fake_backend.FakeBackend(BackendOptions({})), _ctx(3))
    assert [o.status for o in outcomes] == ["timed", "failed", "timed"]
    assert "FakeCompilerError" in outcomes[1].reason and outcomes[1].stage == "compile"
    assert outcomes[0].record["compile_round_robin"] == 3 and len(outcomes[2].samples_s) == 3  # it took part in the first pass


def test_shares_are_balanced_by_cost_and_keep_the_items_order():
    items = [_item(n) for n in (16, 32, 48, 64, 80)]
    cost = {i.item_id: c for i, c in zip(items, (5.0, 1.0, 1.0, 1.0, 3.0))}
    shares = balanced_shares(items, 2, lambda i: cost[i.item_id])
    assert sorted(sum(cost[i.item_id] for i in s) for s in shares) == [5.0, 6.0]
    assert all(s == [i for i in items if i in s] for s in shares)
    assert len(balanced_shares(items, 9)) == 5  # never an empty share


class DyingSession:
    """TEST-ONLY: a worker session whose round-robin batch dies (as on a compiler segfault)."""

    def __init__(self):
        self.one_by_one = []

    def setup(self, item, policy, seed):
        return 0.0

    def run_compile_items(self, items, policy, rounds, seed, progress=None):
        return Outcome(status="failed", stage="compile", reason="worker process died (SIGSEGV (signal 11)) during compile")

    def run(self, item, policy, rounds, seed):
        self.one_by_one.append(item.item_id)
        if item.case.config.block_K == 13:
            return Outcome(status="failed", stage="compile", reason="worker process died (SIGSEGV)")
        return Outcome(status="timed", samples_s=(0.1,), record={"method": "cold lowering"})


def test_a_batch_that_dies_is_timed_again_one_by_one():
    items = [_item(16), _item(32, k=13), _item(64)]
    session = DyingSession()
    phase = CompilePhase(jobs=1)
    first = phase.outcome(items[0], items, lambda it: pytest.fail("not through run"), shared=session)
    rest = [phase.outcome(i, items, lambda it: pytest.fail("measured twice"), shared=session) for i in items[1:]]
    assert session.one_by_one == [i.item_id for i in items]
    assert [o.status for o in (first, *rest)] == ["timed", "failed", "timed"]
    assert "one by one" in first.record["compile_order"] and "SIGSEGV" in first.record["compile_order"]


SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="rr_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, k, 128, "auto", 2) for n, k in CONFIGS], vendor=False)

def test_fake(tlbench):
    tlbench.run()
"""


def _real_run(tmp_path, configs, *args):
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_rr_suite.py").write_text(SUITE.replace("CONFIGS", repr(configs)))
    log = tmp_path / "compiles.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--tlbench-kind=compile", "--tlbench-compile-rounds=3", "--benchmark-json=out.json", *args],
        cwd=tmp_path, capture_output=True, text=True, env={**env, "TLBENCH_FAKE_COMPILE_LOG": str(log)},
    )
    return done, json.loads((tmp_path / "out.json").read_text()), log


@pytest.mark.parametrize("isolation", ["worker", "inprocess"])
def test_a_real_run_interleaves_the_items_rounds(tmp_path, isolation):
    configs = [(128, 32), (64, 32), (32, 32)]
    done, doc, log = _real_run(tmp_path, configs, f"--tlbench-isolation={isolation}")
    assert done.returncode == 0, done.stdout[-3000:]
    rows = [case for case, _, _ in _log(log)]
    ids = [f"tile-1024x1024x1024-f16-bm128-bn{n}-bk{k}-t128-auto-s2" for n, k in configs]
    assert rows[1:] == ids * 3  # after the backend's one untimed setup compile
    timed = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert len(timed) == 3 and all(r["compile_round_robin"] == 3 for r in timed)


def test_a_real_run_where_a_compiler_segfaults_mid_batch_fails_only_that_item(tmp_path):
    configs = [(128, 32), (128, 13), (64, 32)]  # (128, 13): TEST-ONLY compiler segfault
    done, doc, log = _real_run(tmp_path, configs)
    assert done.returncode == 1, done.stdout[-3000:]  # pytest's own status: one item failed
    (crash,) = doc["tlbench"]["failed"]
    assert crash["case_id"].endswith("bn128-bk13-t128-auto-s2") and "SIGSEGV" in crash["error"]
    timed = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert len(timed) == 2 and all("one by one" in r["compile_order"] for r in timed)


def test_progress_counts_timed_rounds_and_gives_an_eta_only_from_each_items_own_rounds():
    """``before_step(done, total, eta_s)``: rounds done of all (a failing item counts what it
    took), and the ETA only once every item with rounds left has a measured round of its
    own, then at each item's own cost per round."""
    from tlbench.harness.measure.runner import _CompileTiming, remaining_seconds, round_counts

    a, b, c = (_CompileTiming(_item(n)) for n in (16, 32, 64))
    assert round_counts([a, b, c], 3) == (0, 9) and remaining_seconds([a, b, c], 3) is None
    a.samples, a.round_s = [0.1], [0.2]
    b.samples, b.round_s = [0.5], [1.0]
    assert remaining_seconds([a, b, c], 3) is None  # c has no round yet: no guess from a and b
    c.failure = Outcome(status="failed", stage="compile", reason="x")
    assert round_counts([a, b, c], 3) == (2, 6)  # c failed with no round: its 3 leave the total
    assert remaining_seconds([a, b, c], 3) == pytest.approx(2 * 0.2 + 2 * 1.0)


def test_a_real_batch_reports_rounds_in_order_and_an_eta_after_the_first_pass():
    seen = []
    items = [_item(n) for n in (16, 32, 64)]
    run_compile_items(items, fake_backend.FakeBackend(BackendOptions({})), _ctx(3), lambda *report: seen.append(report))
    assert [(done, total) for done, total, _, _ in seen] == [(d, 9) for d in range(9)]
    assert [eta is None for _, _, eta, _ in seen] == [True] * 3 + [False] * 6
    assert {detail for *_, detail in seen} == {""}  # the fake builds no binary: no cold builds to count


def test_the_per_item_cap_stops_an_items_rounds_once_they_took_it_and_says_so():
    from tlbench.harness.measure.runner import _CompileTiming, planned_rounds

    slow, fast = _CompileTiming(_item(16)), _CompileTiming(_item(32))
    slow.cpu, fast.cpu = [6.6], [0.13]  # CPU seconds: what the cap counts
    slow.samples, fast.samples = [14.0], [0.4]  # wall seconds on a loaded box: not what the cap counts
    assert planned_rounds(slow, 3, 3.0) == 1 and planned_rounds(fast, 3, 3.0) == 3  # a Z3 schedule vs a GEMM lowering
    fast.cpu, fast.samples = [1.0, 1.2], [5.0, 5.0]
    assert planned_rounds(fast, 5, 3.0) == 3 and planned_rounds(fast, 5, None) == 5
    ctx = replace(_ctx(3), policy=MeasurePolicy(compile_max_seconds=1e-9))
    outcomes = run_compile_items([_item(16), _item(32)], fake_backend.FakeBackend(BackendOptions({})), ctx)
    for o in outcomes:
        assert len(o.samples_s) == 1 and o.record["compile_rounds_capped_s"] == 1e-9
        assert o.record["compile_rounds_asked"] == 3 and o.record["compile_max_seconds"] == 1e-9  # the method, not the count
        assert "1 round(s)" in o.record["method"] and "its rounds stopped once they took 1e-09 CPU seconds" in o.record["method"]
    uncapped = run_compile_items([_item(16)], fake_backend.FakeBackend(BackendOptions({})), _ctx(3))[0]
    assert len(uncapped.samples_s) == 3 and "compile_rounds_capped_s" not in uncapped.record
    assert uncapped.record["compile_rounds_asked"] == 3 and "compile_max_seconds" not in uncapped.record


def test_the_first_pass_of_a_building_backend_says_how_many_cold_builds_are_done():
    """With a device compiler each item's first call is its one cold build, not a round: a
    smoke night's first pass of 84 nvcc builds counted 0/84 rounds for minutes."""
    from tlbench.harness.measure.runner import _CompileTiming, build_words

    a, b, c = (_CompileTiming(_item(n)) for n in (16, 32, 64))
    assert build_words([a, b, c]) == ""  # nothing built yet
    a.built = (object(), 2.0)
    assert build_words([a, b, c]) == "1 of 3 items' one cold build (lowering + device compiler) done"
    b.built, c.built = (object(), 2.0), (object(), 2.0)
    assert build_words([a, b, c]) == ""  # every item built: rounds from here
