"""Shared fixtures for tests that drive the real backends (tilelang, no accelerator).

The tests' tlbench cache (the inert-key probe's answers) lives in a fresh temporary folder,
never in the user's ~/.cache; the pytest processes the tests start inherit it.  When the
tests themselves run under pytest-xdist (``pytest -n 2 tests``), each test runs without
pytest-xdist's worker variables in its environment: a pytest process it starts is a plain
run, not one more xdist worker (which would leave its JSON to a controller that is not there).
The built-in suites and their kernels import as ``tlbench.suites.<family>`` (``from
tlbench.suites.gemm.test_stages import SWEEP``).  tests/toys/ is on ``sys.path``: the
test-only families and backends there (``from tile_family import TileConfig, TileProblem``,
the fake backend's case material) import as the pytester suites that use them do.
"""

import os
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("TLBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="tlbench-test-cache-"))
TOYS = str(Path(__file__).resolve().parent / "toys")
if TOYS not in sys.path:
    sys.path.append(TOYS)

# pytester's inline runs put sys.modules back after each run, and numpy's extension refuses a
# second import in one process; a device item measured in-process imports it (through scipy.stats,
# harness/measure/drift.py).  Imported here, before any inline run's snapshot, so a test file
# passes alone as it does in the whole suite.
try:
    import scipy.stats  # noqa: F401
except ImportError:
    pass

XDIST_WORKER_VARIABLES = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")


@pytest.fixture(scope="session", autouse=True)
def _not_an_xdist_worker_inside_the_tests():
    with pytest.MonkeyPatch.context() as patch:  # session-wide: module fixtures start pytest processes too
        for name in XDIST_WORKER_VARIABLES:
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(scope="session")
def nvidia_sm80():
    from tlbench.backends.nvidia import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions({"nvidia_arch": "sm_80"}))


@pytest.fixture(scope="session")
def nvidia_sm90a():
    from tlbench.backends.nvidia import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))


@pytest.fixture(scope="session")
def ascend():
    from tlbench.backends.ascend import AscendBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return AscendBackend(BackendOptions())


@pytest.fixture(scope="session")
def installed_tlbench(tmp_path_factory):
    """tlbench as pip installs it: the wheel built from a copy of this tree's package sources
    (pyproject.toml, README.md, LICENSE, tlbench/ with its links, harness/, backends/, suites/) and installed into a
    folder of its own with ``pip install --no-deps --target``.  Returns that folder, to be put on
    PYTHONPATH (the copy keeps concurrent builds, pytest-xdist workers', out of the tree)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    source = tmp_path_factory.mktemp("tlbench-source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(root / name, source / name)
    for name in ("tlbench", "harness", "backends", "suites"):
        shutil.copytree(root / name, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path_factory.mktemp("tlbench-site")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q",
                          "--target", str(target), str(source)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    return target
