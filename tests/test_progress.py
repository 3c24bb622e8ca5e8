"""The progress line (harness/pytest_plugin/progress.py) and the compile pool feeding it."""

import io

from fake_backend import FakeBackend
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.backends.kernels.gemm import GemmConfig, GemmProblem
from tlbench.harness.core.cases import Case
from tlbench.harness.measure.compile_pool import CompilePool
from tlbench.harness.pytest_plugin.progress import Progress, live_allowed


def test_plain_lines_at_each_tenth_with_count_elapsed_and_eta():
    out = io.StringIO()
    progress = Progress("device timing (items)", stream=out, live=False)
    for done in range(0, 21):
        progress.update(done, 20)
    lines = out.getvalue().splitlines()
    assert len(lines) == 11  # 0/20, then one per tenth
    assert lines[0].startswith("[tlbench] device timing (items): 0/20, elapsed 0:00, ETA ?")
    assert lines[-1].startswith("[tlbench] device timing (items): 20/20") and "ETA 0:00" in lines[-1]


def test_an_estimated_total_that_jumps_never_repeats_a_tenth():
    """The device phase estimates its total as it goes (H200 full scope: 103/989, 112/1118,
    116/566, 179/757 ...): a plain log gets one line per tenth reached, never one per jump."""
    out = io.StringIO()
    progress = Progress("device timing", stream=out, live=False)
    for done, total in [(0, 500), (103, 989), (112, 1118), (116, 566), (179, 757), (182, 756), (191, 1902),
                        (207, 627), (216, 1015), (400, 800), (401, 700), (700, 700)]:
        progress.update(done, total)
    shares = [int(ln.split(": ")[1].split(",")[0].split("/")[0]) * 10 // int(ln.split("/")[1].split(",")[0])
              for ln in out.getvalue().splitlines()]
    assert shares == sorted(set(shares)) and len(shares) <= 11  # each tenth once, in order
    assert out.getvalue().splitlines()[-1].startswith("[tlbench] device timing: 700/700")


def test_a_later_batch_starts_a_new_line_and_repeats_are_silent():
    out = io.StringIO()
    progress = Progress("compile prefetch (kernels)", stream=out, live=False)
    progress.update(1, 1)
    progress.update(1, 1)
    progress.update(1, 3)
    progress.update(3, 3)
    assert [ln.split(",")[0] for ln in out.getvalue().splitlines()] == [
        "[tlbench] compile prefetch (kernels): 1/1",
        "[tlbench] compile prefetch (kernels): 1/3",
        "[tlbench] compile prefetch (kernels): 3/3",
    ]


def test_no_live_line_off_a_terminal_or_in_an_xdist_worker(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert live_allowed(io.StringIO()) is False
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert live_allowed(Tty()) is True
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert live_allowed(Tty()) is False


def test_the_compile_pool_reports_done_over_total():
    seen = []
    pool = CompilePool(workers=2, progress=lambda done, total: seen.append((done, total)))
    backend = FakeBackend(BackendOptions())
    cases = [Case(GemmProblem(1024, 1024, 1024), GemmConfig(128, 128, 32, 128, "auto", s)) for s in (1, 2, 3)]
    pool.prefetch(backend, cases)
    pool.wait_idle()
    pool.close()
    assert seen[0] == (0, 3) or seen[0][1] == 3
    assert sorted(seen)[-1] == (3, 3)
    assert all(total == 3 for _, total in seen)
