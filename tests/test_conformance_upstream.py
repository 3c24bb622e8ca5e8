"""The conformance suites against tilelang's own example files, where ``TLBENCH_TILELANG_EXAMPLES``
names a tilelang checkout (or its ``examples`` folder); every test here is skipped, saying so,
where it is not set (no upstream file ships with tlbench).

- Every example path a suite names is in that folder, and the loader takes it from there.
- No source of ours (suites/, backends/, tests/) shares a run of 8 or more same-shape lines
  with any Python file of that folder (tests/shape_guard.py: names, numbers and strings
  abstracted, statements joined).
- ``tlbench check suites/conformance`` passes (every suite's callables on CPU torch at its smoke
  size, both backends with a body), and no conformance item is in the quick scope.
- The compile items of every suite - both backends, the smoke sizes, one cold build each - pass
  with the upstream files loaded: one real pytest process over suites/conformance, real
  tilelang and nvcc.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import shape_guard

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "suites" / "conformance"
SUITES = sorted(CONFORMANCE.glob("test_*.py"))
ENV = "TLBENCH_TILELANG_EXAMPLES"

pytestmark = pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} is not set: point it at a tilelang checkout "
                                "(or its examples folder) to check the suites against tilelang's own example files")


def _checkout() -> Path:
    return Path(os.environ[ENV]).expanduser().resolve()


def test_every_example_a_suite_names_is_in_the_upstream_folder():
    import re

    sys.path.insert(0, str(CONFORMANCE))
    try:
        import conformance_examples
    finally:
        sys.path.remove(str(CONFORMANCE))
    call = re.compile(r"""\bexample\(["']([\w./-]+\.py)["']\)""")
    for path in sorted({p for suite in SUITES for p in call.findall(suite.read_text())}):
        found = conformance_examples.source(path).resolve()
        assert found.is_file() and _checkout() in found.parents and found.as_posix().endswith("/" + path), (path, found)


def test_no_source_of_ours_shares_a_run_of_eight_same_shape_lines_with_an_upstream_file():
    upstream = shape_guard.upstream_python_files(_checkout())
    assert upstream, f"{ENV} names no folder with Python files"
    findings = shape_guard.guard([ROOT / "suites", ROOT / "backends", ROOT / "tests"], upstream, min_run=8)
    assert not findings, [(str(f.ours), str(f.theirs), f.longest.length, f.first_line) for f in findings]


def test_every_suite_passes_tlbench_check():
    pytest.importorskip("tilelang")
    out = subprocess.run(
        [sys.executable, "-m", "tlbench", "check", str(CONFORMANCE), "--backend", "nvidia,ascend", "--scope", "smoke"],
        capture_output=True, text=True, cwd=ROOT, timeout=900,
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert f"{len(SUITES)} suite(s)" in out.stdout and " 0 failing their preflight" in out.stdout, out.stdout[-2000:]


def test_no_conformance_item_in_the_quick_scope():
    pytest.importorskip("tilelang")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", str(CONFORMANCE), "--collect-only", "-q", "-p", "no:cacheprovider",
         "--tlbench-scope=quick", "--tlbench-backend=nvidia,ascend"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert out.returncode in (0, 5), out.stdout[-4000:] + out.stderr[-2000:]  # 5: nothing collected
    assert [line for line in out.stdout.splitlines() if "::" in line] == []
    assert "skipped" not in out.stdout.splitlines()[-1], out.stdout[-2000:]  # every suite imported its examples


def test_the_compile_items_of_every_suite_pass_with_the_upstream_files(tmp_path):
    pytest.importorskip("tilelang")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", str(CONFORMANCE), "--benchmark-only", "--tlbench-backend=nvidia,ascend",
         "--tlbench-kind=compile", "--tlbench-scope=smoke", "--tlbench-compile-rounds=1",
         "--tlbench-instructions=hardware",  # counts are not what this tests: no callgrind children
         f"--benchmark-json={tmp_path / 'upstream.json'}", "-p", "no:cacheprovider", "-q", "-rfs"],
        capture_output=True, text=True, cwd=ROOT, timeout=3600,
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    run = json.loads((tmp_path / "upstream.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in run["benchmarks"]]
    assert len({r["kernel"] for r in records}) == len(SUITES), sorted({r["kernel"] for r in records})
    assert {r["backend"] for r in records} == {"nvidia", "ascend"}
