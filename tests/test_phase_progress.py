"""Progress inside the device phase: the measurement loop reports each preparation and batch
(rounds.LoopProgress) and LoopLine turns the reports of one or several loop calls into
one advancing line.  The named FakeBackend (tests/fake_backend.py) stands in for a device."""

from pathlib import Path

import fake_backend
from test_rounds import A, B, VENDOR, ScriptedFake, steady

from tlbench.harness.core.cases import MeasurePolicy
from tlbench.harness.measure.device_session import InProcessSession
from tlbench.harness.measure.outcome import RunContext
from tlbench.harness.measure.rounds import LoopProgress, measure_items
from tlbench.harness.pytest_plugin.progress import LoopLine, ProgressBoard


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


class FakeClock:
    """TEST DOUBLE: a clock that moves a second per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_the_loop_line_is_one_advancing_count_over_several_calls():
    lines: list[str] = []
    board = ProgressBoard(lines.append, clock=FakeClock(), is_main=lambda: True, first_s=0, gap_s=0)
    phase = LoopLine(board.phase("device fake", "device timing fake", "units"), lambda: 4)
    first = [LoopProgress(d, 6, 2, 1 if d > 2 else 0, 2) for d in range(1, 6)] + [LoopProgress(6, 6, 2, 2, 2, True)]
    second = [LoopProgress(d, 6, 2, 1, 2) for d in range(1, 6)] + [LoopProgress(6, 6, 2, 2, 2, True)]
    for report in first + second:
        phase(report)
    assert "1/12 units, 4 items, preparing (compile, check)" in lines[0]  # the second call's items counted ahead
    done = [int(l.split(": ")[1].split("/")[0]) for l in lines]
    assert done == sorted(done) and done[-1] == 12 and all("/12 units" in l for l in lines)
    assert lines[-1].startswith("[tlbench] device timing fake: 12/12 units, done")
    assert not any("ETA" in l for l in lines)  # a device phase has no measured cost to count down


SUITE = fake_backend.four_stage_suite("four")


SLEEPY = Path(__file__).parent / "fixtures" / "compare" / "sleepy"


def test_a_pytest_run_shows_the_phase_advancing_on_lines_of_its_own(pytester):
    """A real pytest run whose device phase lasts seconds (the sleep backend of
    tests/fixtures/compare/sleepy: kernels that sleep): its lines are on stdout, each on a
    line of its own (never after pytest's dots), the count only advances, no ETA."""
    pytester.makeconftest((SLEEPY / "sleepy_conftest.py").read_text().replace("os.path.dirname(__file__)", repr(str(SLEEPY))))
    pytester.makepyfile(test_sleepy=(SLEEPY / "sleepy_suite.py").read_text())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tlbench-backend=sleepy", "--benchmark-only",
                                           "--tlbench-kind=device", "--tlbench-criterion=fixed:samples=300",
                                           "--tlbench-batch=5")
    result.assert_outcomes(passed=8)
    phase = [l for l in result.outlines if "device timing sleepy" in l]
    assert phase and all(l.startswith("[tlbench] device timing sleepy (items prepared + batches): ") for l in phase)
    done = [int(l.split(": ")[1].split("/")[0]) for l in phase]
    assert done == sorted(done) and len(set(done)) > 1  # it advanced during the phase
    assert phase[-1].split(": ")[1].startswith(f"{done[-1]}/{done[-1]}, done, ")
    assert not any("ETA" in l for l in phase)
    assert not any("[tlbench]" in l and not l.startswith("[tlbench]") for l in result.outlines)
