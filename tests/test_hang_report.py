"""A timed-out worker's stacks: real child processes, real signals (harness/measure/hang_report.py)."""

import subprocess
import sys
import textwrap
import time

from tlbench.harness.measure import hang_report

PARKED = textwrap.dedent("""
    import signal, sys, threading, time
    from tlbench.harness.measure import hang_report
    if sys.argv[1] == "arm":
        hang_report.arm()
    else:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # a worker that cannot answer
        print("ready", file=sys.stderr, flush=True)
    def side():
        while True:
            time.sleep(0.05)
    threading.Thread(target=side, daemon=True).start()
    def parked_in_a_wait():
        while True:
            time.sleep(0.05)
    parked_in_a_wait()
""")


def _start(tmp_path, mode):
    log = tmp_path / f"{mode}.log"
    out = open(log, "wb")
    proc = subprocess.Popen([sys.executable, "-c", PARKED, mode], stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not log.read_text():
        time.sleep(0.05)
    time.sleep(0.2)
    return proc, log


def test_the_main_thread_is_named_first_and_the_worker_keeps_running(tmp_path):
    proc, log = _start(tmp_path, "arm")
    try:
        stacks = hang_report.capture(proc.pid, log)
        assert stacks.where.startswith("<string>:"), stacks.where
        assert "parked_in_a_wait" in stacks.where.split(" <- ")[0]
        first, *others = stacks.text.split("\n\nThread ")
        assert "parked_in_a_wait" in first and "side" not in first
        assert any(" in side" in block for block in others)  # every thread is in the text
        assert proc.poll() is None  # the dump does not stop it: the caller decides
    finally:
        proc.kill()
        proc.wait()


def test_a_worker_that_does_not_answer_gets_a_sentence_not_a_guess(tmp_path):
    proc, log = _start(tmp_path, "ignore")
    try:
        stacks = hang_report.capture(proc.pid, log, wait_s=1.0)
        assert stacks.text == ""
        assert stacks.where.startswith("no stacks: the worker did not answer SIGUSR1 within 1 s")
    finally:
        proc.kill()
        proc.wait()


def test_a_gone_process_and_a_missing_log_are_said_as_such(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert hang_report.capture(proc.pid, tmp_path / "x.log").where.startswith("no stacks: the signal could not be sent")
    assert hang_report.capture(proc.pid, None).where == "no stacks: the worker has no log"
