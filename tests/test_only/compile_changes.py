"""TEST ONLY pytest plug-in: a sized, real change of one case's lowering, for acceptance checks.

Load it by name: ``pytest -p test_only.compile_changes ...`` (nothing loads it
otherwise, so these options exist only in a session that asks for them).  It adds

- ``--tlbench-test-only-extra-lowering-work CASE_ID:ITERATIONS``: that case's cold lowering also
  runs ``tests/test_only/compile_slowdown.py::extra_work(ITERATIONS)`` inside the timed call (a fixed
  pure-Python loop: the same instructions every time, so its cost is sized in instructions);
- ``--tlbench-test-only-pass-config CASE_ID:KEY=VALUE[,KEY=VALUE]``: tilelang pass configs added
  to that case's lowering on the CUDA path (e.g. ``tl.disable_warp_specialized=true``);
- ``--tlbench-test-only-num-stages CASE_ID:N``: that case's body built with ``num_stages=N``,
  under its own case id;

(``CASE_ID`` may be ``BACKEND/CASE_ID``: both backends have cases of the same id) and hands
them to every backend through the backend options (the
``pytest_tlbench_register_backends`` hook), registering the backends' test-only subclasses
(tests/test_only/nvidia_test_only.py, ascend_test_only.py), which alone act on them, so they
also reach worker and count-child processes.  A bad spec is a usage error naming the form it wants.  Plans lowered with a change
say so (``features["test_only"]``); never use it for results.
"""

from __future__ import annotations

import pytest

from test_only.compile_slowdown import TestOnlyLoweringChanges
from tlbench.harness.core.backend_api import BackendOptions

OPTIONS = (
    ("--tlbench-test-only-extra-lowering-work", "test_only_extra_lowering_work", "CASE_ID:ITERATIONS",
     "TEST ONLY: extra fixed work inside that case's timed lowering (tests/test_only/compile_slowdown.py::extra_work)"),
    ("--tlbench-test-only-pass-config", "test_only_pass_config", "CASE_ID:KEY=VALUE[,KEY=VALUE]",
     "TEST ONLY: tilelang pass configs added to that case's lowering"),
    ("--tlbench-test-only-num-stages", "test_only_num_stages", "CASE_ID:N",
     "TEST ONLY: that case's body built with num_stages=N, under its own case id"),
)


def pytest_addoption(parser):
    group = parser.getgroup("tlbench-test-only", "tlbench TEST ONLY lowering changes (never for results)")
    for name, dest, metavar, text in OPTIONS:
        group.addoption(name, dest=dest, default=None, metavar=metavar, help=text)


class _Handover:
    """Adds the given values to the registry's backend options."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def pytest_tlbench_register_backends(self, registry):
        from test_only.faults import ASCEND, NVIDIA, _load

        registry.options = BackendOptions({**registry.options.values, **self.values})
        for backend, factory in (("nvidia", NVIDIA), ("ascend", ASCEND)):  # the test-only subclasses obey them
            registry.register(backend, _load(factory))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    values = {dest: config.getoption(dest) for _, dest, _, _ in OPTIONS if config.getoption(dest)}
    if not values:
        return
    try:
        TestOnlyLoweringChanges.from_options(BackendOptions(values))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(_Handover(values), "tlbench-test-only-compile-changes")
