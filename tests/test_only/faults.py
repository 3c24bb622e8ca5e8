"""TEST ONLY pytest plugin: fault and slowdown injection options and the backends that obey them.

Load it where a test needs it: ``pytest -p test_only.faults ...`` (or
``pytest_plugins`` in a test's conftest.py).  Without it no such option exists (``pytest
--help`` lists none) and no backend builds a test-only object.

Contract: ``pytest_addoption`` adds the options below to the group ``tlbench test-only``;
``pytest_tlbench_register_backends(registry, config)`` (tlbench's hook, called as the run is
configured) does nothing when none is given.  When one is given it checks the value (a bad
one: ``pytest.UsageError`` naming the option and the form it wants), adds the value to the
registry's ``BackendOptions`` under the key the backend reads, and registers the test-only
subclass (tests/test_only/nvidia_test_only.py, ascend_test_only.py) under the backend's own
name, so device workers (which import the factory by ``module:qualname``) build it too.
- ``--tlbench-nvidia-test-only-fault=CASE_ID=oob|spin[,...]``: a faulting (out-of-bounds store)
  or never-ending kernel in place of that case's (fault_injection.py);
- ``--tlbench-nvidia-test-only-slowdown=CASE_ID:FRACTION``: a sized extra kernel in that case's
  timed call (slowdown.py);
- ``--tlbench-{nvidia,ascend}-test-only-compile-slowdown=CASE_ID:FRACTION`` (or ``*:FRACTION``):
  that case's timed cold compile takes 1 + FRACTION times as long (compile_slowdown.py).
Never for results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest

from tlbench.harness.core.backend_api import BackendOptions


@dataclass(frozen=True)
class TestOnlyOption:
    __test__ = False  # not a pytest class
    name: str
    dest: str  # the BackendOptions key the backend's subclass reads
    backend: str
    factory: str  # "module:class" of the subclass
    parse: str  # "module:class" whose ``parse(spec)`` checks the value
    help: str


NVIDIA = "test_only.nvidia_test_only:TestOnlyNvidiaBackend"
ASCEND = "test_only.ascend_test_only:TestOnlyAscendBackend"
COMPILE = "test_only.compile_slowdown:TestOnlyCompileSlowdown"
OPTIONS = (
    TestOnlyOption("--tlbench-nvidia-test-only-fault", "nvidia_test_only_fault", "nvidia", NVIDIA,
                   "test_only.fault_injection:TestOnlyFaults",
                   "CASE_ID=oob|spin[,...] runs a deliberately faulting (out-of-bounds store) or never-ending kernel "
                   "in place of that case's"),
    TestOnlyOption("--tlbench-nvidia-test-only-slowdown", "nvidia_test_only_slowdown", "nvidia", NVIDIA,
                   "test_only.slowdown:TestOnlySlowdown",
                   "CASE_ID:FRACTION adds a sized extra kernel to that case's timed call"),
    TestOnlyOption("--tlbench-nvidia-test-only-compile-slowdown", "nvidia_test_only_compile_slowdown", "nvidia", NVIDIA,
                   COMPILE, "CASE_ID:FRACTION or *:FRACTION: that case's timed lowering takes 1+FRACTION times as long"),
    TestOnlyOption("--tlbench-ascend-test-only-compile-slowdown", "ascend_test_only_compile_slowdown", "ascend", ASCEND,
                   COMPILE, "CASE_ID:FRACTION or *:FRACTION: that case's timed lowering + Z3 schedule takes "
                   "1+FRACTION times as long"),
)


def _load(ref: str) -> Any:
    from importlib import import_module

    module, _, name = ref.partition(":")
    return getattr(import_module(module), name)


def pytest_addoption(parser) -> None:
    group = parser.getgroup("tlbench test-only", "tlbench TEST ONLY injection (tests/test_only/faults.py); never for results")
    for option in OPTIONS:
        group.addoption(option.name, dest="tlbench_test_only_" + option.dest, default=None, help="TEST ONLY: " + option.help)


def chosen(getoption: Callable[[str], Any]) -> dict[TestOnlyOption, str]:
    """The test-only options given, with their values."""
    return {o: v for o in OPTIONS if (v := getoption("tlbench_test_only_" + o.dest))}


def check(option: TestOnlyOption, value: str) -> None:
    """Raise ``pytest.UsageError`` with the parser's one line when ``value`` is malformed."""
    parse = _load(option.parse).parse
    try:
        parse(value, option.name) if option.parse == COMPILE else parse(value)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def apply(registry, given: dict[TestOnlyOption, str]) -> None:
    """Put the values into ``registry``'s options and register each named backend's subclass."""
    if not given:
        return
    for option, value in given.items():
        check(option, value)
    registry.options = BackendOptions({**registry.options.values, **{o.dest: v for o, v in given.items()}})
    for backend, factory in sorted({(o.backend, o.factory) for o in given}):
        registry.register(backend, _load(factory))


def pytest_tlbench_register_backends(registry, config) -> None:
    apply(registry, chosen(config.getoption))
