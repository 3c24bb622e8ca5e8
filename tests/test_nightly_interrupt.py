"""``tlbench nightly`` talks while it runs and, stopped by a signal, says what finished and leaves no process.

Real nights of the throwaway sleep backend (tests/fixtures/compare/sleepy): three suite files,
the third holding, after its tlbench items, a test that starts a process in a session of its
own (as a callgrind count does) and then waits.  The night is run as a user runs it
(``python -m tlbench nightly ...`` in its own process); once the third suite is in that test,
the night gets SIGTERM (or SIGINT).  It must print a line per suite as it starts and ends,
a summary naming the two finished suites and the one it stopped, exit with 128 + the signal
(its own status), and no process the night started may be left: none has its working
directory in the night's folder afterwards.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

SLEEPY = Path(__file__).parent / "fixtures" / "compare" / "sleepy"

HANG = textwrap.dedent('''
    import os
    import subprocess
    import time

    def test_hang(benchmark):  # uses the fixture, so --benchmark-only runs it
        subprocess.Popen(["sleep", "600"], start_new_session=True)  # escapes the suite's process group
        open(os.environ["TLBENCH_TEST_HANG_MARK"], "w").close()
        time.sleep(600)
''')


def _night_folder(tmp_path: Path) -> Path:
    suites = tmp_path / "suites"
    suites.mkdir()
    for name in ("test_1_sleepy.py", "test_2_sleepy.py", "test_3_sleepy_then_hang.py"):
        shutil.copy(SLEEPY / "sleepy_suite.py", suites / name)
    with (suites / "test_3_sleepy_then_hang.py").open("a") as third:
        third.write(HANG)
    (suites / "conftest.py").write_text(
        (SLEEPY / "sleepy_conftest.py").read_text().replace("os.path.dirname(__file__)", repr(str(SLEEPY))))
    return suites


def _processes_in(folder: Path) -> list[str]:
    """Live processes whose working directory is ``folder`` (zombies have none)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd") == str(folder):
                found.append(f"{entry}: " + Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120])
        except OSError:
            continue
    return found


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_night_stopped_after_its_second_suite_summarises_and_leaves_nothing(tmp_path, signum):
    if not os.path.isdir("/proc"):
        pytest.skip("reads /proc to find the processes left")
    suites = _night_folder(tmp_path)
    mark = tmp_path / "hang-started"
    env = {**os.environ, "TLBENCH_TEST_HANG_MARK": str(mark)}
    command = [sys.executable, "-m", "tlbench", "nightly", str(suites), "--backend", "sleepy",
               "--pytest-args=--tlbench-kind=device --tlbench-criterion=fixed:samples=10 --tlbench-batch=5",
               "--out-dir", str(tmp_path / "out"), "--baseline-dir", str(tmp_path / "baselines"), "--timeout", "300"]
    night = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(night.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 280
        while not mark.exists() and night.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert mark.exists(), "".join(lines)
        assert _processes_in(tmp_path), "the third suite's processes should be running now"
        night.send_signal(signum)
        code = night.wait(timeout=120)
    finally:
        if night.poll() is None:
            night.kill()
    reader.join(timeout=10)
    out = "".join(lines)
    assert code == 128 + signum, out
    name = signal.Signals(signum).name
    for k, suite in ((1, "test_1_sleepy"), (2, "test_2_sleepy")):
        assert f"[nightly] suite {k}/3 {suite}: started" in out
        assert f"[nightly] suite {k}/3 {suite}: 8 items" in out  # the collected count, before it ends
        assert f"[nightly] suite {k}/3 {suite}: ok, 8 timed, 0 failed, 0 skipped," in out
    assert f"[nightly] suite 3/3 test_3_sleepy_then_hang: {name} received" in out
    assert f"## tlbench nightly: INTERRUPTED by {name}: 2 of 3 suite(s) finished; nothing was judged" in out
    assert f"| {suites / 'test_1_sleepy.py'} | ok | 8 timed, 0 failed, 0 skipped |" in out
    assert f"| {suites / 'test_3_sleepy_then_hang.py'} | interrupted |" in out
    assert (tmp_path / "out" / "summary.md").read_text().startswith("## tlbench nightly: INTERRUPTED")
    left = _processes_in(tmp_path)
    assert not left, "\n".join(left)


def test_the_help_lists_the_signal_exit_codes(capsys):
    from tlbench.harness.cli import main as cli_main

    with pytest.raises(SystemExit) as done:
        cli_main(["nightly", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "3 internal error" in text and "130 SIGINT (Ctrl-C), 143 SIGTERM" in text
