"""The run trace (harness/core/trace.py): TLBENCH_TRACE=<file> gets one JSON line per mark from
every process; without it nothing is written; the timeline reads back in time order."""

import json
import multiprocessing
import os

from tlbench.harness.core import trace


def _mark_many(path: str, n: int) -> None:
    os.environ[trace.ENV] = path
    for i in range(n):
        trace.mark("child mark", role="child", i=i, pad="x" * 200)


def test_no_file_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(trace.ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    trace.mark("anything")
    assert list(tmp_path.iterdir()) == []


def test_marks_of_several_processes_stay_whole_lines_and_read_back_in_order(tmp_path, monkeypatch):
    path = tmp_path / "run.trace"
    monkeypatch.setenv(trace.ENV, str(path))
    trace.mark_first("configure")
    children = [multiprocessing.get_context("spawn").Process(target=_mark_many, args=(str(path), 200)) for _ in range(3)]
    for child in children:
        child.start()
    for child in children:
        child.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 3 * 200
    records = [json.loads(line) for line in lines]  # every line is one whole JSON object
    assert {r["who"] for r in records} == {"main", "child"}
    assert len({r["pid"] for r in records}) == 4
    timeline = trace.timeline(trace.read(path))
    assert timeline[0].endswith("process started")  # the pytest process's start, before its first mark
    seconds = [float(t.split("s", 1)[0].strip(" +")) for t in timeline]
    assert seconds == sorted(seconds)


def test_process_start_is_before_now():
    import time

    started = trace.process_start()
    assert started is None or 0 <= time.time() - started < 24 * 3600


def _cli(*args, stdout=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "tlbench.harness.core.trace", *args], stdout=stdout or subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def test_the_timeline_command_says_what_it_needs_and_survives_a_reader_that_stops(tmp_path):
    import subprocess
    import sys

    assert _cli().returncode == 2 and "usage: python3 -m tlbench.harness.core.trace FILE" in _cli().stderr
    missing = _cli(str(tmp_path / "none.txt"))
    assert missing.returncode == 2 and "none.txt: No such file or directory" in missing.stderr
    big = tmp_path / "trace.txt"
    big.write_text("".join(json.dumps({"t": 1000.0 + i, "pid": 7, "who": "main", "event": f"mark {i}"}) + "\n" for i in range(50000)))
    reader = subprocess.Popen(["head", "-1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    writer = subprocess.run([sys.executable, "-m", "tlbench.harness.core.trace", str(big)], stdout=reader.stdin,
                            stderr=subprocess.PIPE, text=True)
    reader.stdin.close()
    assert reader.stdout.read().startswith("+   0.00 s  main(7)  mark 0")
    reader.wait()
    assert writer.returncode == 0 and "Traceback" not in writer.stderr, writer.stderr  # not a crash, not a signal
