"""The progress board (harness/pytest_plugin/progress.py): one place for every progress line.

The board's clock and main-thread test are replaced by ``FakeClock`` / a flag (test doubles,
named as such), so what is written when is decided here, not by this box's load."""

import threading

from fake_backend import FakeBackend
from tlbench.harness.core.backend_api import BackendOptions
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.cases import Case
from tlbench.harness.measure.compile_pool import CompilePool
from tlbench.harness.pytest_plugin.progress import ProgressBoard


class FakeClock:
    """TEST DOUBLE: a clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _board(lines, clock, main=lambda: True):
    return ProgressBoard(lines.append, clock=clock, is_main=main)


def test_a_count_never_goes_backwards_and_the_total_never_reads_below_it():
    lines, clock = [], FakeClock()
    line = _board(lines, clock).phase("device nvidia", "device timing nvidia", "units")
    line.update(27, 115)
    clock.now += 2
    line.update(24, 148)  # a report of a later call that counts from a lower base
    assert lines[-1].startswith("[tlbench] device timing nvidia: 27/148 units")
    clock.now += 10
    line.update(200, 150)
    assert "200/200 units" in lines[-1]


def test_no_eta_unless_the_caller_measured_one_and_it_counts_down_from_then():
    lines, clock = [], FakeClock()
    board = _board(lines, clock)
    line = board.phase("compile ascend", "compile items ascend", "rounds")
    line.update(1, 80)
    clock.now += 2.5
    board.tick()
    assert lines[-1] == "[tlbench] compile items ascend: 1/80 rounds, elapsed 0:02"  # no ETA: none given
    line.update(16, 80, "", eta_s=40.0)
    clock.now += 12
    board.tick()
    assert lines[-1].endswith("elapsed 0:14, ETA 0:28")
    line.end()
    assert lines[-1] == "[tlbench] compile items ascend: 16/80 rounds, done, elapsed 0:14"


def test_short_phases_stay_silent_long_ones_write_at_tenths_and_at_least_every_ten_seconds():
    lines, clock = [], FakeClock()
    board = _board(lines, clock)
    short = board.phase("a", "short phase", "x")
    short.update(1, 2)
    clock.now += 1.5
    short.update(2, 2)
    short.end()
    assert lines == []  # under 2 s: no line, and no end line either
    long = board.phase("b", "long phase", "x")
    for step in range(1, 101):
        clock.now += 0.3  # 30 s in all, a step every 0.3 s
        long.update(step, 100)
    long.end()
    counts = [int(ln.split(": ")[1].split("/")[0]) for ln in lines]
    assert counts == sorted(counts) and 4 <= len(lines) <= 11  # first after 2 s, then tenths at most every 5 s
    assert lines[-1].startswith("[tlbench] long phase: 100/100 x, done")
    silent = board.phase("c", "silent phase")
    silent.note("setup: the backend's first compile")
    for _ in range(25):  # 25 s with no count at all: heartbeats
        clock.now += 1
        board.tick()
    beats = [ln for ln in lines if ln.startswith("[tlbench] silent phase")]
    assert len(beats) == 3 and beats[0] == "[tlbench] silent phase: setup: the backend's first compile, elapsed 0:02"


def test_each_phase_has_its_own_counter():
    """Two backends' compile phases (96 rounds, then 75) once shared one counter, and the
    second was never shown: its total was below the first's."""
    lines, clock = [], FakeClock()
    board = _board(lines, clock)
    first, second = board.phase("compile ascend", "compile ascend", "rounds"), board.phase("compile nvidia", "compile nvidia", "rounds")
    clock.now += 3
    first.update(96, 96)
    first.end()
    second.update(1, 75)
    clock.now += 3
    board.tick()
    assert lines[-1].startswith("[tlbench] compile nvidia: 1/75 rounds")


def test_only_the_main_thread_writes():
    lines, clock = [], FakeClock()
    main = {"yes": False}
    board = _board(lines, clock, main=lambda: main["yes"])
    line = board.phase("d", "device timing", "units")
    thread = threading.Thread(target=line.update, args=(5, 10))
    thread.start()
    thread.join()
    clock.now += 3
    board.tick()
    assert lines == []  # a device thread's report waits for the main thread
    main["yes"] = True
    board.tick()
    assert lines == ["[tlbench] device timing: 5/10 units, elapsed 0:03"]


def test_a_board_without_a_writer_writes_nothing():
    board = ProgressBoard(None)
    line = board.phase("x", "x")
    line.update(1, 2)
    board.tick()
    line.end()


def test_the_compile_pool_reports_done_over_total():
    seen = []
    pool = CompilePool(workers=2, progress=lambda done, total: seen.append((done, total)))
    backend = FakeBackend(BackendOptions())
    cases = [Case(TileProblem(1024, 1024, 1024), TileConfig(128, 128, 32, 128, "auto", s)) for s in (1, 2, 3)]
    pool.prefetch(backend, cases)
    pool.wait_idle()
    pool.close()
    assert seen[0] == (0, 3) or seen[0][1] == 3
    assert sorted(seen)[-1] == (3, 3)
    assert all(total == 3 for _, total in seen)


def test_a_progress_line_during_collection_starts_a_line_of_its_own(pytester):
    """pytest's own ``collecting ... `` leaves its line open (no newline on a pipe); a worker's
    start-up line written then must not land on it."""
    import io

    from _pytest._io import TerminalWriter

    from tlbench.harness.pytest_plugin.progress import TerminalLines

    config = pytester.parseconfigure()
    reporter = config.pluginmanager.getplugin("terminalreporter")
    out = io.StringIO()
    reporter._tw = TerminalWriter(out)
    reporter.write("collecting ... ")
    TerminalLines(config)("[tlbench] nvidia worker: starting")
    assert out.getvalue().splitlines() == ["collecting ... ", "[tlbench] nvidia worker: starting"]
