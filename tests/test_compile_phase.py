"""The compile phase (harness/measure/compile_phase.py): a backend's compile items timed N at a time.

Unit tests drive the phase with ``FakeCompileSession`` (a TEST-ONLY fake of a worker session,
to test the phase's own logic: every item once, never more than N at a time, setup once per
job, sessions closed, the record says N).  The end-to-end test runs real pytest processes
with the named fake backend (tests/fake_backend.py) in real worker processes, a compiler
segfault included.
"""

import json
import os
import subprocess
import sys
import threading
import time

import pytest

import fake_backend
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.cases import Case
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.compile_phase import CompilePhase
from tlbench.harness.measure.cpu_plan import resolve_jobs
from tlbench.harness.measure.cpu_plan import COMPILE_NICE
from tlbench.harness.measure.outcome import Outcome


def _item(n: int, backend: str = "fake", kind: str = "compile") -> BenchItem:
    return BenchItem(backend, kind, Case(TileProblem(1024, 1024, 1024), TileConfig(128, n, 32, 128, "auto", 2)))


class FakeCompileSession:
    """TEST-ONLY: a worker session that 'compiles' by sleeping, and counts what it was asked."""

    live = 0
    peak = 0
    lock = threading.Lock()

    def __init__(self, log: list) -> None:
        self.log, self.setups, self.closed = log, 0, False

    def setup(self, item, policy, seed):
        self.setups += 1
        return 0.0

    def run(self, item, policy, rounds, seed):
        cls = FakeCompileSession
        with cls.lock:
            cls.live += 1
            cls.peak = max(cls.peak, cls.live)
        time.sleep(0.02)
        with cls.lock:
            cls.live -= 1
        self.log.append(item.item_id)
        return Outcome(status="timed", samples_s=(0.1,), record={"method": "cold lowering, 3 round(s)"})

    def run_compile_items(self, items, policy, rounds, seed, progress=None):
        return [self.run(i, policy, rounds, seed) for i in items]  # a worker's round-robin, item by item here

    def close(self):
        self.closed = True


def test_every_item_is_timed_once_never_more_than_n_at_a_time_and_says_so():
    log, sessions = [], []

    def make(backend, slot):
        sessions.append(FakeCompileSession(log))
        return sessions[-1]

    FakeCompileSession.peak = 0
    items = [_item(n) for n in (16, 32, 48, 64, 80, 96, 112)] + [_item(128, backend="other")]
    phase = CompilePhase(jobs=3, make_session=make)
    serial = []
    first = phase.outcome(items[0], items, lambda it: serial.append(it) or Outcome(status="timed"))
    assert sorted(log) == sorted(i.item_id for i in items[:7])  # one backend's items, each once
    assert serial == [] and len(sessions) == 3 and FakeCompileSession.peak == 3
    assert all(s.setups == 1 and s.closed for s in sessions)
    assert first.record["compile_jobs"] == 3 and first.record["method"].endswith("3 compile items timed at a time, one per process")
    rest = [phase.outcome(i, items, lambda it: pytest.fail("measured twice")) for i in items[1:7]]
    assert all(o.record["compile_jobs"] == 3 for o in rest) and len(log) == 7
    other = phase.outcome(items[7], items, lambda it: pytest.fail("not in this batch"))
    assert other.status == "timed" and len(log) == 8  # the other backend: its own batch


def test_one_job_is_the_serial_path_and_an_item_outside_the_phase_too():
    calls = []
    serial = CompilePhase(jobs=1, make_session=lambda b, s: pytest.fail("no session at jobs=1"))
    out = serial.outcome(_item(16), [_item(16)], lambda it: calls.append(it.item_id) or Outcome(status="timed"))
    assert out.status == "timed" and calls == [_item(16).item_id] and "compile_jobs" not in out.record
    phase = CompilePhase(jobs=4, make_session=lambda b, s: pytest.fail("nothing to batch"))
    phase.outcome(_item(32), [], lambda it: calls.append(it.item_id) or Outcome(status="timed"))
    assert calls[-1] == _item(32).item_id


@pytest.mark.parametrize("text, cpus, xdist, isolated, jobs", [
    ("auto", 16, False, True, 8), ("auto", 32, False, True, 16), ("auto", 4, False, True, 1), ("auto", 2, False, True, 1),
    ("auto", 16, True, True, 1), ("auto", 16, False, False, 1), ("3", 2, False, True, 3), ("1", 16, False, False, 1),
])
def test_jobs_auto_is_half_the_usable_cpus_on_a_big_host_else_one(text, cpus, xdist, isolated, jobs):
    assert resolve_jobs(text, cpus, xdist, isolated) == jobs


@pytest.mark.parametrize("text, words", [("0", ">= 1"), ("many", "positive integer or 'auto'"), ("2:inprocess", "needs worker processes")])
def test_bad_jobs_say_what_to_do(text, words):
    value, _, mode = text.partition(":")
    with pytest.raises(ValueError, match=words):
        resolve_jobs(value, 16, False, mode != "inprocess")


SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="jobs_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, k, 128, "auto", 2) for n, k in CONFIGS], vendor=False)

def test_fake(tlbench):
    tlbench.run()
"""


def test_a_real_run_times_compile_items_two_at_a_time_and_a_segfault_costs_one_item(tmp_path):
    configs = [(128, 32), (64, 32), (128, 13), (32, 32), (16, 32)]  # (128, 13): TEST-ONLY compiler segfault
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_jobs_suite.py").write_text(SUITE.replace("CONFIGS", repr(configs)))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--tlbench-kind=compile", "--tlbench-compile-jobs=2", "--benchmark-json=out.json"],
        cwd=tmp_path, capture_output=True, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},  # a run of its own
    )
    assert done.returncode == 1, done.stdout[-3000:]  # pytest's own status: one item failed
    doc = json.loads((tmp_path / "out.json").read_text())
    timed = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert len(timed) == 4 and all(r["compile_jobs"] == 2 and "2 compile items timed at a time" in r["method"] for r in timed)
    (crash,) = [r for r in doc["tlbench"]["failed"]]
    assert crash["case_id"].endswith("bn128-bk13-t128-auto-s2") and "SIGSEGV" in crash["error"]


class ReportingSession:
    """TEST-ONLY: a job's worker session that reports its rounds as a worker does (done, total, ETA)."""

    def __init__(self, eta_s):
        self.eta_s = eta_s

    def setup(self, item, policy, seed):
        return 0.0

    def run_compile_items(self, items, policy, rounds, seed, progress=None):
        for done in range(len(items) * rounds):
            progress(done, len(items) * rounds, None if done < len(items) else self.eta_s)
        return [Outcome(status="timed", samples_s=(0.1,) * rounds, record={"method": "cold lowering"}) for _ in items]

    def close(self):
        pass


def test_the_jobs_rounds_are_one_line_per_backend_with_the_slowest_jobs_eta():
    from tlbench.harness.pytest_plugin.progress import ProgressBoard

    lines = []
    board = ProgressBoard(lines.append, clock=lambda: 0.0, is_main=lambda: True, first_s=0, gap_s=0, heartbeat_s=0)
    etas = iter([5.0, 9.0])
    items = [_item(n) for n in (16, 32, 48, 64)]
    phase = CompilePhase(jobs=2, make_session=lambda backend, slot: ReportingSession(next(etas)), compile_rounds=3, board=board)
    phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"))
    ours = [ln for ln in lines if ln.startswith("[tlbench] compile items fake (cold rounds round-robin, 2 at a time): ")]
    assert ours[0].endswith("setup: the backend's first compile (imports, solver start-up), untimed, in 2 jobs, elapsed 0:00")
    counts = [ln.split(": ")[1].split(" ")[0] for ln in ours[1:-1]]
    assert all(c.endswith("/12") for c in counts) and [int(c.split("/")[0]) for c in counts] == sorted(int(c.split("/")[0]) for c in counts)
    assert any(ln.endswith("ETA 0:09") for ln in ours)  # once both jobs have one: the later of the two
    assert not any("ETA" in ln for ln in ours[:3])  # none before every job measured its items
    assert ours[-1].split(": ")[1].startswith("12/12 rounds, done")  # the rounds the items came back with


def test_a_slow_setup_says_where_its_time_went():
    from tlbench.harness.measure.setup_compile import setup_account, setup_words

    account = setup_account(21.7, 7.2, "compile-ascend-fa-b1h2-s1024-d128-bf16-bm128-bn128-t128-auto-s3", own_lowering_s=6.6)
    assert setup_words("ascend", account) == (
        "ascend setup 21.7 s: 7.2 s waiting for the compiling process to start (its imports: the compiler and its runtime); "
        "14.5 s its first compile, of compile-ascend-fa-b1h2-s1024-d128-bf16-bm128-bn128-t128-auto-s3: 6.6 s that item's own "
        "lowering (its median timed round) and 7.9 s one-off (lazy imports, solver start-up, code generators warming up)")


def test_the_phase_keeps_its_setup_item_and_that_items_median_round():
    class Session:  # TEST-ONLY: a shared session whose items come back with fixed rounds
        def setup(self, item, policy, seed):
            return 0.0

        def run_compile_items(self, items, policy, rounds, seed, progress=None):
            return [Outcome(status="timed", samples_s=(0.3, 0.1, 0.2), record={"method": "cold lowering"}) for _ in items]

    items = [_item(n) for n in (16, 32)]
    phase = CompilePhase(jobs=1, compile_rounds=3)
    phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"), shared=Session())
    parts = phase.setup_parts["fake"]
    assert parts["item"] == items[0].item_id and parts["own_lowering_s"] == 0.2 and parts["start_s"] <= parts["total_s"]


def _jobs_run(tmp_path, *options):
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_jobs_suite.py").write_text(SUITE.replace("CONFIGS", repr([(128, 32), (64, 32), (32, 32)])))
    trace, log = tmp_path / "trace.jsonl", tmp_path / "compiles.log"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-compile-jobs=2",
         "--benchmark-json=out.json", *options],
        cwd=tmp_path, capture_output=True, text=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}, "TLBENCH_TRACE": str(trace),
             "TLBENCH_FAKE_COMPILE_LOG": str(log)},
    )
    assert done.returncode == 0, done.stdout[-3000:]
    return [json.loads(line) for line in trace.read_text().splitlines()], log


def test_the_compile_jobs_workers_start_with_the_backends_worker_before_collection_at_nice_10(tmp_path):
    """Their imports (7 s a worker on the 16-core GPU host, 16 of them at once) overlap
    collection instead of being the compile phase's setup; at nice 10 they yield the CPUs to
    collection and the device worker's start."""
    marks, log = _jobs_run(tmp_path, "--tlbench-kind=compile")
    phase = next(k for k, m in enumerate(marks) if m["event"] == "compile phase start")
    collected = next(k for k, m in enumerate(marks) if m["event"] == "collected")
    spawned = [k for k, m in enumerate(marks) if m["event"] == "worker spawn"]
    assert len(spawned) == 3 and all(k < collected < phase for k in spawned)  # the backend's worker and both jobs'
    cold = [line.split() for line in log.read_text().splitlines() if "cold=True" in line]
    assert len(cold) >= 3 * 3 and {f[5] for f in cold} == {f"nice={COMPILE_NICE}"}  # every timed round in a job's worker
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "out.json").read_text())["benchmarks"]]
    assert len(records) == 3 and {r["process_nice"] for r in records} == {COMPILE_NICE}  # and each record says so


def test_compile_jobs_workers_started_early_end_after_collection_when_no_compile_item_is_left(tmp_path):
    marks, _log = _jobs_run(tmp_path, "--tlbench-kind=device", "--tlbench-criterion=fixed:samples=5")
    collected = next(k for k, m in enumerate(marks) if m["event"] == "collected")
    spawned = [k for k, m in enumerate(marks) if m["event"] == "worker spawn"]
    ended = [m for m in marks[collected:] if m["event"] == "compile jobs ended"]
    assert len(spawned) == 3 and all(k < collected for k in spawned)
    assert ended == [{**ended[0], "backend": "fake", "workers": 2}] and not any(m["event"] == "compile phase start" for m in marks)


@pytest.mark.parametrize("stop", ["ctrl-c", "interrupted outcome"])
def test_an_interrupted_phase_ends_its_line_interrupted_with_its_count_never_done(stop):
    from tlbench.harness.measure.outcome import interrupted
    from tlbench.harness.pytest_plugin.progress import ProgressBoard

    class Session:  # TEST-ONLY: a shared session stopped after 4 of its 6 rounds
        def setup(self, item, policy, seed):
            return 0.0

        def run_compile_items(self, items, policy, rounds, seed, progress=None):
            progress(4, 6)
            if stop == "ctrl-c":
                raise KeyboardInterrupt
            return interrupted("compile", "the run was interrupted (Ctrl-C)")

    lines = []
    board = ProgressBoard(lines.append, clock=lambda: 0.0, is_main=lambda: True, first_s=0, gap_s=0, heartbeat_s=0)
    items = [_item(n) for n in (16, 32)]
    phase = CompilePhase(jobs=1, compile_rounds=3, board=board)
    if stop == "ctrl-c":
        with pytest.raises(KeyboardInterrupt):
            phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"), shared=Session())
    else:
        assert phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"), shared=Session()).status == "interrupted"
    last = lines[-1].split(": ", 1)[1]
    assert last.startswith("4/6 rounds, interrupted, elapsed") and "done" not in last


class SideBySideSession:
    """TEST-ONLY: a shared session whose batch waits at ``barrier`` for the other backend's
    batch: two phases one after another break the barrier and their items come back failed."""

    running = 0
    lock = threading.Lock()

    def __init__(self, barrier=None, setup_error=None):
        self.barrier, self.setup_error, self.batches = barrier, setup_error, 0

    def setup(self, item, policy, seed):
        if self.setup_error is not None:
            raise self.setup_error
        return 0.0

    def run_compile_items(self, items, policy, rounds, seed, progress=None):
        cls = SideBySideSession
        self.batches += 1
        with cls.lock:
            cls.running += 1
        try:
            if self.barrier is not None:
                self.barrier.wait(timeout=10)
            for done in range(len(items) * rounds):
                progress(done + 1, len(items) * rounds)
            return [Outcome(status="timed", samples_s=(0.1,) * rounds, record={"method": "cold lowering"}) for _ in items]
        finally:
            with cls.lock:
                cls.running -= 1


def test_an_overlapped_runs_backends_time_their_compile_items_side_by_side_and_count_after_every_round():
    from tlbench.harness.pytest_plugin.progress import ProgressBoard

    barrier = threading.Barrier(2)
    sessions = {"fake": SideBySideSession(barrier), "other": SideBySideSession(barrier)}
    counted = []
    lines = []
    board = ProgressBoard(lines.append, clock=lambda: 0.0, is_main=lambda: True, first_s=0, gap_s=0, heartbeat_s=0)
    phase = CompilePhase(jobs=1, compile_rounds=3, board=board,
                         count=lambda backend, batch, stored: counted.append((backend, len(batch), SideBySideSession.running)),
                         side_by_side=lambda asking: {b: s for b, s in sessions.items() if b != asking})
    mine, theirs = [_item(n) for n in (16, 32)], [_item(n, backend="other") for n in (16, 32, 48)]
    items = mine + theirs
    outcome = phase.outcome(mine[0], items, lambda it: pytest.fail("not one by one"), shared=sessions["fake"])
    assert outcome.status == "timed", outcome.reason  # a barrier broken by phases one after another fails the batch
    later = phase.outcome(theirs[0], items, lambda it: pytest.fail("not one by one"), shared=sessions["other"])
    assert later.status == "timed" and sessions["other"].batches == 1  # timed with the first, handed out now
    assert sorted(counted) == [("fake", 2, 0), ("other", 3, 0)]  # counted once every round of both had come back
    assert phase.together == {"fake": ("other",), "other": ("fake",)}
    ends = [ln.split(": ", 1)[1] for ln in lines if "rounds, " in ln and ", done" in ln]
    assert sorted(e.split(" ")[0] for e in ends) == ["6/6", "9/9"]


def test_without_side_by_side_another_backends_items_wait_for_their_own_turn():
    sessions = {"fake": SideBySideSession(), "other": SideBySideSession()}
    phase = CompilePhase(jobs=1, compile_rounds=3)
    items = [_item(16), _item(16, backend="other")]
    assert phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"), shared=sessions["fake"]).status == "timed"
    assert sessions["other"].batches == 0 and phase.together == {}
    assert phase.outcome(items[1], items, lambda it: pytest.fail("not one by one"), shared=sessions["other"]).status == "timed"


def test_a_side_by_side_phase_that_stops_fails_its_own_items_not_the_asking_one():
    from tlbench.harness.pytest_plugin.progress import ProgressBoard

    lines = []
    board = ProgressBoard(lines.append, clock=lambda: 0.0, is_main=lambda: True, first_s=0, gap_s=0, heartbeat_s=0)
    sessions = {"fake": SideBySideSession(), "other": SideBySideSession(setup_error=RuntimeError("solver gone"))}
    phase = CompilePhase(jobs=1, compile_rounds=3, board=board, side_by_side=lambda asking: {b: s for b, s in sessions.items() if b != asking})
    items = [_item(16), _item(16, backend="other")]
    assert phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"), shared=sessions["fake"]).status == "timed"
    theirs = phase.outcome(items[1], items, lambda it: pytest.fail("not one by one"), shared=sessions["other"])
    assert theirs.status == "failed" and theirs.reason == "the other compile phase stopped: RuntimeError: solver gone"
    assert lines[-1].startswith("[tlbench] compile items other") and lines[-1].split(": ", 1)[1].startswith("stopped by RuntimeError")
    assert any(ln.startswith("[tlbench] compile items fake") and ", done" in ln for ln in lines)


@pytest.mark.parametrize("raised", ["interrupt", "error"])
def test_a_compile_job_stopped_by_an_exception_ends_its_items_with_it(raised):
    """A job of a parallel phase whose session raises (its worker's start awaited while the run is
    interrupted, or any other error): that job's items end as interrupted, or failed with the
    exception's words - never as 'ended before this item was timed' - and the phase's line and
    trace say interrupted where it was."""
    from tlbench.harness.measure.interrupt import Interrupted

    class StoppedSession(ReportingSession):  # TEST-ONLY: the session of job 2 raises as its start is awaited
        def ready_facts(self):
            raise Interrupted("the run was interrupted (Ctrl-C) while the worker started") if raised == "interrupt" \
                else RuntimeError("worker start refused")

    items = [_item(n) for n in (16, 32, 48, 64)]
    phase = CompilePhase(jobs=2, make_session=lambda backend, slot: (StoppedSession if slot == 1 else ReportingSession)(1.0),
                         compile_rounds=3)
    outcomes = [phase.outcome(items[0], items, lambda it: pytest.fail("not one by one"))]
    outcomes += [phase.stored[it.item_id] for it in items[1:]]
    stopped = [o for o in outcomes if o.status != "timed"]
    assert len(stopped) == 2 and all(o.status == ("interrupted" if raised == "interrupt" else "failed") for o in stopped)
    if raised == "error":
        assert all("the compile job stopped: RuntimeError: worker start refused" in o.reason for o in stopped)
