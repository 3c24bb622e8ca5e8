"""Shared fixtures for tests that drive the real backends (tilelang, no accelerator)."""

import pytest


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
