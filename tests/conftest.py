"""Shared fixtures for tests that drive the real backends (tilelang, no accelerator).

The tests' tlbench cache (the inert-key probe's answers) lives in a fresh temporary folder,
never in the user's ~/.cache; the pytest processes the tests start inherit it.
"""

import os
import tempfile

import pytest

os.environ.setdefault("TLBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="tlbench-test-cache-"))


@pytest.fixture(scope="session")
def nvidia_sm80():
    from backends.nvidia import NvidiaBackend
    from harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions({"nvidia_arch": "sm_80"}))


@pytest.fixture(scope="session")
def nvidia_sm90a():
    from backends.nvidia import NvidiaBackend
    from harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))


@pytest.fixture(scope="session")
def ascend():
    from backends.ascend import AscendBackend
    from harness.core.backend_api import BackendOptions

    return AscendBackend(BackendOptions())
