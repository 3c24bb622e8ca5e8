"""Progress inside the device phase: the measurement loop reports each preparation and batch
(rounds.LoopProgress) and PhaseProgress turns the reports of one or several loop calls into
one advancing line.  The named FakeBackend (tests/fake_backend.py) stands in for a device."""

import io

import fake_backend
from test_rounds import A, B, VENDOR, ScriptedFake, steady

from tlbench.harness.core.cases import MeasurePolicy
from tlbench.harness.measure.device_session import InProcessSession
from tlbench.harness.measure.outcome import RunContext
from tlbench.harness.measure.rounds import LoopProgress, measure_items
from tlbench.harness.pytest_plugin.progress import PhaseProgress, Progress


def _measure(items, reports, **policy):
    backend = ScriptedFake({i.case.case_id: steady(1e-3) for i in (A, B, VENDOR)})
    ctx = RunContext(policy=MeasurePolicy(**{"clock_warmup_s": 0.0, "warmup": 0, **policy}), compile_rounds=1, seed=0,
                     compiled=lambda b, c: b.compile(c, False))
    return measure_items(InProcessSession(backend, ctx), items, ctx.policy, sleep=lambda s: None, progress=reports.append)


def test_the_loop_reports_every_preparation_and_batch_and_ends_with_done_equal_total():
    reports: list[LoopProgress] = []
    _measure([A, B, VENDOR], reports, rounds=3, batch=10, criterion="fixed:samples=30")
    assert [r.done for r in reports[:-1]] == list(range(1, 3 + 9 + 1))  # 3 preparations, 3 rounds x 3 items
    assert [r.round for r in reports[:3]] == [0, 0, 0] and reports[3].round == 1 and reports[-2].round == 3
    assert reports[0].total == 3 + 3 * 3  # expected from the start: each item prepared and its minimum rounds
    assert all(r.done < r.total for r in reports[:-1])  # the line stays open until the call ends
    assert reports[-1].finished and reports[-1].done == reports[-1].total == 12


def test_more_rounds_than_the_minimum_grow_the_total():
    reports: list[LoopProgress] = []
    _measure([A], reports, rounds=2, batch=5, criterion="fixed:samples=20")  # 4 batches of 5 for 20 samples
    assert reports[-1].done == 1 + 4 and reports[-1].round == 4
    totals = [r.total for r in reports]
    assert totals[0] == 3 and totals == sorted(totals[:-1]) + [5] and totals[-2] > 3


def test_phase_progress_is_one_line_over_several_calls():
    stream = io.StringIO()
    line = Progress("device timing", stream=stream, live=False)
    phase = PhaseProgress(line, lambda: 4)
    first = [LoopProgress(d, 6, 2, 1 if d > 2 else 0, 2) for d in range(1, 6)] + [LoopProgress(6, 6, 2, 2, 2, True)]
    second = [LoopProgress(d, 6, 2, 1, 2) for d in range(1, 6)] + [LoopProgress(6, 6, 2, 2, 2, True)]
    for report in first + second:
        phase(report)
    lines = stream.getvalue().splitlines()
    assert "4 items, preparing (compile, check), 1/12" in lines[0]  # the second call's items counted ahead
    assert "/12" in lines[-1] and lines[-1].split(": ")[1].startswith("4 items, round 2 (at least 2), 12/12")
    assert all("/12" in l for l in lines)  # one line's total: no second line for the second call


SUITE = fake_backend.four_stage_suite("four")


def test_a_pytest_run_shows_the_phase_advancing_before_its_items_report(pytester):
    pytester.makeconftest(fake_backend.CONFTEST)
    pytester.makepyfile(test_four=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only",
                                           "--tlbench-criterion=fixed:samples=20", "--tlbench-rounds=2")
    result.assert_outcomes(passed=4)
    phase = [l for l in result.stderr.lines if "device timing (items prepared + batches)" in l]
    assert any("preparing (compile, check)" in l for l in phase)
    assert any("round 2 (at least 2)" in l for l in phase)
    done = [int(l.split(", ")[-3].split("/")[0]) for l in phase]
    assert done == sorted(done) and len(set(done)) > 2  # it advanced during the phase
    assert phase[-1].split(", ")[-3].split("/")[0] == phase[-1].split(", ")[-3].split("/")[1]  # and ended whole
