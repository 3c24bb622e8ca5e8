"""The TEST ONLY lowering changes exist only where their plug-in is named, and read their specs.

tests/test_only/compile_changes.py is loaded with ``-p``; without it pytest does not know the
options; with it a bad spec is a usage error naming the form.  The change itself is real
(tests/test_only/compile_slowdown.py): ``extra_work`` is the same instructions every time, so a count of it
sizes the slowdown (tests/test_instructions.py counts that loop's twin under callgrind).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_only.compile_slowdown import TestOnlyLoweringChanges, extra_work
from tlbench.harness.core.backend_api import BackendOptions

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "test_only.compile_changes"


def _pytest(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "tests"), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "--tlbench-backend=nvidia", "--tlbench-isolation=inprocess", str(ROOT / "suites" / "gemm" / "test_stages.py"),
                           *args], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)  # tests/: test_only


def test_the_options_exist_only_with_the_plugin():
    done = _pytest("--tlbench-test-only-num-stages=x:1")
    assert done.returncode == 4 and "unrecognized arguments: --tlbench-test-only-num-stages" in done.stderr


def test_a_bad_spec_is_a_usage_error_naming_the_form():
    done = _pytest("-p", PLUGIN, "--tlbench-test-only-extra-lowering-work=some-case")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--tlbench-test-only-extra-lowering-work wants CASE_ID:ITERATIONS (a whole number), got 'some-case'" in done.stderr


def test_the_changes_apply_to_their_case_only():
    changes = TestOnlyLoweringChanges.from_options(BackendOptions({
        "test_only_pass_config": "c1:tl.disable_warp_specialized=true,tl.x=3", "test_only_extra_lowering_work": "c2:10"}))
    assert changes.pass_configs("c1", None) == {"tl.disable_warp_specialized": True, "tl.x": 3}
    assert changes.pass_configs("c2", {"a": 1}) == {"a": 1}
    assert changes.words("c2") == "TEST ONLY: 10 iterations of extra lowering work" and changes.words("c3") is None
    assert TestOnlyLoweringChanges.from_options(BackendOptions({})) is None
    one = {"test_only_num_stages": "ascend/c1:1"}
    assert TestOnlyLoweringChanges.from_options(BackendOptions(one), "ascend").words("c1") == "TEST ONLY: lowered with num_stages=1"
    assert TestOnlyLoweringChanges.from_options(BackendOptions(one), "nvidia").words("c1") is None
    with pytest.raises(ValueError, match="CASE_ID:KEY=VALUE"):
        TestOnlyLoweringChanges.from_options(BackendOptions({"test_only_pass_config": "c1:novalue"}))
    assert extra_work(1000) == extra_work(1000) == sum((i * i) % 7 for i in range(1000))
