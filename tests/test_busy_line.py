"""A suite callable that runs for seconds is named in a progress line while it runs.

The worker's ``BusyWatch`` (harness/measure/busy_watch.py) names the suite code its main thread
is in once a stage has lasted a few seconds; the session shows it as a line of its own.  The
first tests drive the watch's rule and its frame naming on threads of this process (a fake
clock, named as such); the last runs a real pytest session with a suite whose reference loops
in Python for several seconds on the TEST-ONLY CPU torch device (tests/cpu_torch_backend.py),
through the real device worker, and reads the line from pytest's own output.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tlbench.harness.measure.busy_watch import NO_SUITE_CODE, TOOL_DIRS, BusyWatch, where_any_thread, where_running
from tlbench.harness.measure.worker_messages import Busy

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def _frame_of(target) -> tuple[str, str]:
    """``where_running`` of a thread parked inside ``target`` (with and without this folder as tool code)."""
    inside, leave = threading.Event(), threading.Event()
    thread = threading.Thread(target=target, args=(inside, leave))
    thread.start()
    try:
        assert inside.wait(10)
        frame = sys._current_frames()[thread.ident]
        return where_running(frame), where_running(frame, tool_dirs=(str(HERE),))
    finally:
        leave.set()
        thread.join()


def slow_reference(inside, leave):
    return _inner_step(inside, leave)


def _inner_step(inside, leave):
    inside.set()
    leave.wait(10)


def test_the_suite_callable_is_named_with_the_file_and_line_not_its_helpers():
    as_suite, as_tool = _frame_of(slow_reference)  # threading's frames call it: library code, then no tool code
    assert as_suite.startswith("slow_reference (") and "test_busy_line.py:" in as_suite, as_suite
    # where every frame is tool or library code, no suite code is named and the words say so
    assert as_tool == NO_SUITE_CODE


def test_a_suite_callable_on_another_thread_is_named_when_the_main_thread_only_waits(tmp_path):
    """A body factory runs in the compile pool's thread while the main thread waits for it."""
    (tmp_path / "pooled_suite_code.py").write_text(
        "def body_factory(inside, leave):\n    inside.set()\n    leave.wait(10)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import pooled_suite_code
    finally:
        sys.path.remove(str(tmp_path))
    inside, leave = threading.Event(), threading.Event()
    thread = threading.Thread(target=pooled_suite_code.body_factory, args=(inside, leave))
    thread.start()
    try:
        assert inside.wait(10)
        main = threading.main_thread().ident
        # this folder as tool code: the main thread (pytest, this test) runs no suite code
        named = where_any_thread(main, tool_dirs=(str(HERE), *TOOL_DIRS))
        assert named.startswith("body_factory (") and "pooled_suite_code.py:3" in named, named
        assert where_any_thread(main) .startswith("test_a_suite_callable_on_another_thread")  # the main thread first
        leave.set()
        thread.join()
        assert where_any_thread(main, tool_dirs=(str(HERE), *TOOL_DIRS)) == NO_SUITE_CODE
    finally:
        leave.set()
        thread.join()
        sys.modules.pop("pooled_suite_code", None)


def test_the_watch_speaks_after_the_threshold_then_every_interval_and_not_after_the_end():
    now = [0.0]  # a fake clock, named as such
    watch = BusyWatch(lambda message: None, after_s=3.0, every_s=5.0, clock=lambda: now[0])
    assert watch.due() is None  # nothing running
    watch.begin("check")
    now[0] = 2.9
    assert watch.due() is None
    now[0] = 3.0
    assert watch.due()[:2] == ("check", 3.0)
    now[0] = 7.0
    assert watch.due() is None  # told 4 s ago
    now[0] = 8.0
    assert watch.due()[:2] == ("check", 8.0)
    watch.begin("run")  # a new stage starts its own clock
    now[0] = 9.0
    assert watch.due() is None
    now[0] = 12.0
    assert watch.due()[:2] == ("run", 4.0)
    watch.end()
    now[0] = 30.0
    assert watch.due() is None


def test_a_send_that_fails_ends_the_watch_without_raising():
    calls = []

    def broken(message):
        calls.append(message)
        raise BrokenPipeError("the controller is gone")

    watch = BusyWatch(broken, after_s=0.0, every_s=0.0)
    watch.begin("check")
    thread = threading.Thread(target=watch._run)
    thread.start()
    thread.join(10)
    assert not thread.is_alive() and len(calls) == 1 and calls[0] == Busy("check", calls[0].where, calls[0].seconds)


SLOW_SUITE = '''
import time
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def copy_body(N):
    @T.prim_func
    def main(x: T.Tensor((N,), "float32"), y: T.Tensor((N,), "float32")):
        with T.Kernel(N // 128, threads=128) as b:
            for i in T.Parallel(128):
                y[b * 128 + i] = x[b * 128 + i]
    return main


def make_inputs(device, N):
    return [torch.randn(N, device=device)]


def looping_reference(x):
    end = time.monotonic() + 9.0
    while time.monotonic() < end:  # a Python loop, as a slow reference is
        pass
    return x.clone()


SWEEP = kernel_sweep("slow_reference_copy", {"cuda": copy_body}, sizes={"N": 1024}, smoke={"N": 256}, quick=(),
                     inputs=make_inputs, reference=looping_reference)


def test_slow(tlbench):
    tlbench.run()
'''


def test_a_reference_looping_for_seconds_is_named_in_the_progress_line_while_it_runs(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("tilelang")
    suite = tmp_path / "test_slow_reference_suite.py"
    suite.write_text(SLOW_SUITE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(suite), "--benchmark-only", "-p", "cpu_torch_backend", "-p",
         "tlbench.harness.plugin", "--tlbench-backend=cputorch", "--tlbench-kind=device", "--tlbench-scope=smoke",
         "--tlbench-max-samples=5", "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600, env=env,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    lines = [ln for ln in out.splitlines() if ln.startswith("[tlbench] cputorch worker:")]
    named = [ln for ln in lines if "running looping_reference (" in ln and "test_slow_reference_suite.py:" in ln]
    assert named, out[-4000:]
    assert any(": check: running" in ln or ": inputs: running" in ln for ln in named), named


def test_the_watch_sends_only_where_suite_code_runs():
    """The watch's own thread over this test's thread: named as suite code, or, with this folder as
    tool code, silent (tlbench or the compiler at work has its phase's own line)."""
    for tool_dirs, expect_sent in (((*TOOL_DIRS,), True), ((str(HERE), *TOOL_DIRS), False)):
        sent: list[tuple] = []
        watch = BusyWatch(sent.append, after_s=0.0, every_s=0.0, tool_dirs=tool_dirs)
        watch._main = threading.get_ident()  # this test's thread stands for the worker's main thread
        watch.begin("check")
        thread = threading.Thread(target=watch._run)
        thread.start()
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline and not sent:
            time.sleep(0.05)
        watch.stop()
        thread.join(10)
        assert bool(sent) is expect_sent, sent
        if sent:
            assert sent[0].where.startswith("test_the_watch_sends_only_where_suite_code_runs ("), sent[0]


def test_a_line_due_in_a_stage_that_ended_meanwhile_is_never_sent():
    """The request's answer goes out after end(): a line computed before it must not follow it."""
    sent: list[tuple] = []
    now = [0.0]  # a fake clock, named as such
    watch = BusyWatch(sent.append, after_s=1.0, every_s=1.0, clock=lambda: now[0])
    watch.begin("check")
    now[0] = 2.0
    stage, _, generation = watch.due()
    watch.end()  # the request answered while the line was being worded
    assert watch.send_if_current(generation, Busy(stage, "x", 2.0)) is False and sent == []
    watch.begin("check")  # the next request, same stage name: still not the stage the line was due in
    assert watch.send_if_current(generation, Busy(stage, "x", 2.0)) is False and sent == []
    now[0] = 4.0
    stage, _, generation = watch.due()
    assert watch.send_if_current(generation, Busy(stage, "x", 2.0)) is True and len(sent) == 1


def test_library_code_is_what_an_installer_put_beside_its_dist_info_not_a_module_sharing_its_name(tmp_path, monkeypatch):
    from tlbench.harness.measure.busy_watch import _library_dirs

    numpy = pytest.importorskip("numpy")  # installed with its .dist-info beside it
    where = os.path.realpath(numpy.__file__)
    assert any(where.startswith(d + os.sep) for d in _library_dirs())
    stand_in = tmp_path / "numpy"  # a folder of the user's that merely shares the name
    stand_in.mkdir()
    (stand_in / "__init__.py").write_text("")
    fake = type(sys)("numpy")
    fake.__file__ = str(stand_in / "__init__.py")
    monkeypatch.setitem(sys.modules, "numpy", fake)
    assert not any(d == str(stand_in) or d.startswith(str(tmp_path)) for d in _library_dirs())
