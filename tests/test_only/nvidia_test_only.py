"""TEST ONLY: the NVIDIA backend with fault and slowdown injection set from the test plugin's options.

Contract: ``TestOnlyNvidiaBackend(options)`` is the product backend with its test-only hooks
filled from the option values of tests/test_only/faults.py (which registers it under the
name ``nvidia``, only when one of its NVIDIA options is given):
- ``nvidia_test_only_fault`` -> ``TestOnlyFaults`` (fault_injection.py): the case's kernel is
  replaced by a faulting or never-ending one, in the check and in every timed call;
- ``nvidia_test_only_slowdown`` -> ``TestOnlySlowdown`` (slowdown.py): one sized extra kernel
  after that case's timed call;
- ``nvidia_test_only_compile_slowdown`` -> ``TestOnlyCompileSlowdown`` (compile_slowdown.py):
  that case's cold compile spins longer.
A device worker imports this class by name (the factory's ``module:qualname``) and builds it
from the same option values.  Importing this module, and parsing the options, import neither
torch nor tilelang (the wrappers import torch when they wrap a call).
"""

from __future__ import annotations

from typing import Any

from tlbench.backends.nvidia.backend import NvidiaBackend
from test_only.compile_slowdown import TestOnlyCompileSlowdown, TestOnlyLoweringChanges
from test_only.fault_injection import TestOnlyFaults
from test_only.slowdown import TestOnlySlowdown
from tlbench.harness.core.backend_api import BackendOptions

COMPILE_SLOWDOWN = "--tlbench-nvidia-test-only-compile-slowdown"


class TestOnlyNvidiaBackend(NvidiaBackend):
    __test__ = False  # not a pytest class

    def __init__(self, options: BackendOptions, worker_facts: dict[str, Any] | None = None) -> None:
        super().__init__(options, worker_facts)
        self._faults = TestOnlyFaults.parse(options.get("nvidia_test_only_fault"))
        self._slowdown = TestOnlySlowdown.parse(options.get("nvidia_test_only_slowdown"))
        self._compile_slowdown = TestOnlyCompileSlowdown.parse(options.get("nvidia_test_only_compile_slowdown"),
                                                               COMPILE_SLOWDOWN)
        self._changes = TestOnlyLoweringChanges.from_options(options, self.name)  # compile_changes.py's options
