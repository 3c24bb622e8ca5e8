"""pytest hooks tlbench adds.  Implement them in a conftest.py or a plugin."""

import pytest


@pytest.hookspec
def pytest_tlbench_register_backends(registry, config):
    """Add backends to ``registry`` (a ``harness.core.registry.BackendRegistry``), e.g. a test's
    fake backend: ``registry.register("fake", FakeBackend)``; ``config`` is the pytest config
    (an implementation may take ``registry`` alone)."""
