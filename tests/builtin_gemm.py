"""The built-in GEMM as tests build its cases: the suites' own declaration through ``kernel_sweep``.

Contract: ``gemm_case(problem(...), config(...), label=None)`` is one ``Case`` of the GEMM the
built-in suites run (suites/gemm/test_stages.py ...): its problem and config are the suites' words
(suites/gemm/sweep.py ``problem`` / ``config``, re-exported here), its family the one
``kernel_sweep("gemm", **GEMM, ...)`` makes, so ids, footprints, validation, the body
(suites/gemm/body.py, lowered for real by a backend) and the reference are exactly the suites'.
``gemm_vendor(problem(...))`` is its vendor item; ``FAMILY`` the family.  ``SWEEP`` holds the
family where a worker process looks for it (a family is pickled by reference to the module that
declares it).  Needs suites/ on ``sys.path`` (tests/conftest.py puts it there).
"""

from __future__ import annotations

from typing import Any, Mapping

from tlbench.suites.gemm.sweep import GEMM, config, problem

from tlbench import kernel_sweep
from tlbench.harness.core.cases import Case, VendorCase

__all__ = ["FAMILY", "SWEEP", "config", "gemm_case", "gemm_vendor", "problem"]

SWEEP = kernel_sweep("gemm", **GEMM, sizes=[problem(1024, 1024, 1024)], configs=[config(128, 128, 32)])
FAMILY = SWEEP.family


def gemm_case(sizes: Mapping[str, Any], axes: Mapping[str, Any], label: str | None = None) -> Case:
    return Case(FAMILY.problem(sizes), FAMILY.config(axes), label=label)


def gemm_vendor(sizes: Mapping[str, Any]) -> VendorCase:
    return VendorCase(FAMILY.problem(sizes))
