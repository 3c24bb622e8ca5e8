"""TEST ONLY: the Ascend backend with a compile slowdown set from the test plugin's option.

Contract: ``TestOnlyAscendBackend(options)`` is the product backend whose cold compile of one
case (or every case) spins longer (``ascend_test_only_compile_slowdown`` ->
``TestOnlyCompileSlowdown``, compile_slowdown.py).  tests/test_only/faults.py registers it
under the name ``ascend`` only when that option is given.
"""

from __future__ import annotations

from tlbench.backends.ascend.backend import AscendBackend
from test_only.compile_slowdown import TestOnlyCompileSlowdown, TestOnlyLoweringChanges
from tlbench.harness.core.backend_api import BackendOptions

COMPILE_SLOWDOWN = "--tlbench-ascend-test-only-compile-slowdown"


class TestOnlyAscendBackend(AscendBackend):
    __test__ = False  # not a pytest class

    def __init__(self, options: BackendOptions) -> None:
        super().__init__(options)
        self._compile_slowdown = TestOnlyCompileSlowdown.parse(options.get("ascend_test_only_compile_slowdown"),
                                                               COMPILE_SLOWDOWN)
        self._changes = TestOnlyLoweringChanges.from_options(options, self.name)  # compile_changes.py's options
