"""Workers start before the first tlbench suite's imports; compile jobs beside device timing run niced.

``looks_like_suite`` is read from the real suites and from files that only quote a suite; the
early start is checked on a real pytest run (the test-only fake backend) through its trace; the
nice value through a real child process's /proc entry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fake_backend
from tlbench.harness.measure.cpu_plan import COMPILE_NICE, ENV_NICE, nice_from_environment, renice
from tlbench.harness.pytest_plugin.early_start import looks_like_suite

ROOT = Path(__file__).resolve().parents[1]


def test_every_shipped_suite_looks_like_one_and_a_quoted_suite_does_not(tmp_path):
    suites = sorted((ROOT / "suites").rglob("test_*.py"))
    assert suites and all(looks_like_suite(p) for p in suites)
    quoted = tmp_path / "test_quoted.py"
    quoted.write_text('SUITE = """\nfrom tlbench import kernel_sweep\nSWEEP = kernel_sweep("x", {})\n"""\n')
    assert not looks_like_suite(quoted)  # the text matches, the syntax tree has no SWEEP
    (tmp_path / "test_plain.py").write_text("def test_x():\n    assert True\n")
    (tmp_path / "test_broken.py").write_text("from tlbench import kernel_sweep\nSWEEP = (\n")
    (tmp_path / "test_other_sweep.py").write_text("from mylib import kernel_sweep\nSWEEP = kernel_sweep()\n")
    assert not any(looks_like_suite(tmp_path / n) for n in ("test_plain.py", "test_broken.py", "test_other_sweep.py"))
    assert not looks_like_suite(tmp_path / "missing.py")
    # tlbench's own tests quote suites in strings: none of them starts workers
    assert [p.name for p in (ROOT / "tests").glob("test_*.py") if looks_like_suite(p)] == []


def test_workers_of_an_auto_run_start_before_the_first_suite_module_is_imported(tmp_path):
    suite = (ROOT / "tests" / "test_overlap.py").read_text().split('SUITE = """', 1)[1].split('"""', 1)[0]
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_a_suite.py").write_text("from tlbench.harness.core import trace\n"
                                              "trace.mark('suite module imported')\n" + suite)
    trace = tmp_path / "trace.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=auto", "--benchmark-only",
         "--tlbench-kind=compile", "-k", "fake", "--benchmark-json=out.json"],  # auto loads every backend; the fake runs
        cwd=tmp_path, capture_output=True, text=True, env={**env, "TLBENCH_TRACE": str(trace)}, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    events = [json.loads(line)["event"] for line in trace.read_text().splitlines()]
    assert events.index("worker spawn") < events.index("suite module imported") < events.index("collected")


def test_renice_reaches_a_running_child_and_the_environment_sets_it_at_start():
    if not hasattr(os, "setpriority") or not Path("/proc/self/task").is_dir():
        pytest.skip("needs Linux's per-thread nice values")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        renice(COMPILE_NICE, child.pid)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _nice_of(child.pid) != COMPILE_NICE:
            time.sleep(0.05)
        assert _nice_of(child.pid) == COMPILE_NICE
    finally:
        child.kill()
        child.wait()
    code = "from tlbench.harness.measure.cpu_plan import nice_from_environment as n; print(n(), __import__('os').nice(0))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, ENV_NICE: str(COMPILE_NICE)}, check=True).stdout.split()
    assert out == [str(COMPILE_NICE), str(COMPILE_NICE)]
    with pytest.raises(ValueError, match="TLBENCH_NICE='low': give a whole number"):
        nice_from_environment({ENV_NICE: "low"})
    assert nice_from_environment({}) is None


def _nice_of(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])  # field 19 of proc(5), counted after the command name
