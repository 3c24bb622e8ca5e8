"""The conformance suites against tilelang's own example files, unchanged, where
``TLBENCH_TILELANG_EXAMPLES`` names a tilelang checkout (or its ``examples`` folder); every test
here is skipped, saying so, where it is not set (no upstream file is shipped with tlbench).

- Every example path a suite names is in that folder, and the loader takes it from there.
- The compile items of every suite - both backends, the smoke sizes, one cold build each -
  pass with the upstream files loaded: one real pytest process over suites/conformance, real
  tilelang and nvcc; the records' buffer names are the upstream files' own (the bundled
  rewrites name their buffers otherwise), so the run compiled what the variable names.
- Each bundled rewrite is our own code: apart from its interface (imports, signatures,
  ``T.const`` names, tensor declarations, which a drop-in replacement must share) it repeats
  at most a fifth of its longer lines verbatim from the upstream file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "suites" / "conformance"
BUNDLED = CONFORMANCE / "tilelang_examples"
ENV = "TLBENCH_TILELANG_EXAMPLES"
EXAMPLE_CALL = re.compile(r"""\bexample\(["']([\w./-]+\.py)["']\)""")
INTERFACE = re.compile(r"^(import |from |def |@|\w+(, \w+)* = T\.const\(|\w+: T\.Tensor\(|\w+ = T\.empty\()")

pytestmark = pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} is not set: point it at a tilelang checkout "
                                "(or its examples folder) to check the suites against tilelang's own example files")


def _paths() -> list[str]:
    return sorted({p for suite in CONFORMANCE.glob("test_*.py") for p in EXAMPLE_CALL.findall(suite.read_text())})


def _upstream(path: str) -> Path:
    sys.path.insert(0, str(CONFORMANCE))
    try:
        import conformance_examples
    finally:
        sys.path.remove(str(CONFORMANCE))
    return conformance_examples.source(path)


def test_every_example_a_suite_names_is_in_the_upstream_folder():
    root = Path(os.environ[ENV]).expanduser().resolve()
    for path in _paths():
        found = _upstream(path).resolve()
        assert found.is_file() and root in found.parents and found.as_posix().endswith("/" + path), (path, found)


@pytest.mark.parametrize("path", _paths())
def test_each_rewrite_is_our_own_code(path):
    ours = [line.strip() for line in (BUNDLED / path).read_text().splitlines()]
    ours = [line for line in ours if len(line) >= 25 and not INTERFACE.match(line)]
    theirs = {line.strip() for line in _upstream(path).read_text().splitlines()}
    repeated = [line for line in ours if line in theirs]
    assert len(repeated) <= 0.2 * len(ours), repeated


def test_the_compile_items_of_every_suite_pass_with_the_upstream_files(tmp_path):
    pytest.importorskip("tilelang")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", str(CONFORMANCE), "--benchmark-only", "--tlbench-backend=nvidia,ascend",
         "--tlbench-kind=compile", "--tlbench-scope=smoke", "--tlbench-compile-rounds=1",
         "--tlbench-instructions=hardware",  # counts are not what this tests: no callgrind children
         f"--benchmark-json={tmp_path / 'upstream.json'}", "-p", "no:cacheprovider", "-q", "-rfs"],
        capture_output=True, text=True, cwd=ROOT, timeout=3600, env=os.environ.copy(),
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    run = json.loads((tmp_path / "upstream.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in run["benchmarks"]]
    suites = {r["kernel"] for r in records}
    assert len(suites) == len(list(CONFORMANCE.glob("test_*.py"))), sorted(suites)
    assert {r["backend"] for r in records} == {"nvidia", "ascend"}
    upstream_text = "\n".join(_upstream(p).read_text() for p in _paths())
    ports = "\n".join(p.read_text() for p in CONFORMANCE.glob("*.py"))  # a user's port beside the suites
    names = {b["name"] for r in records for b in (r.get("plan") or {}).get("buffers") or []}
    assert names, "no record names a buffer"
    foreign = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", upstream_text + ports))
    assert not foreign, f"buffers the upstream files do not declare (a bundled rewrite was compiled?): {foreign}"
