"""Ascend 950's on-chip memory (dav-3510), as tilelang's scheduler sees it.  No tilelang here.

Contract: ``scopes()``: L1, L0A/L0B, L0C and UB (216 KiB with SIMT code: variant ``simt``); only
one version of each buffer has to fit (the Z3 scheduler may pick fewer, and it misses an L0C
accumulator over 256 KiB, caught here).  ``rejection(case)`` is the whole pre-compile verdict.
"""

from __future__ import annotations

from typing import Any, Sequence

from tlbench.harness.core import space
from tlbench.harness.core.budget import KiB, MINIMUM, Scope, ScopeUse

CAPACITY = {"shared.l1": 512 * KiB, "shared.l0a": 64 * KiB, "shared.l0b": 64 * KiB,
            "shared.l0c": 256 * KiB, "shared.ub": 248 * KiB}
UB_WITH_SIMT = 216 * KiB
DIALECT = "ascend"


def scopes() -> tuple[Scope, ...]:
    return tuple(
        Scope(name, capacity, enforced_on=MINIMUM, variants={"simt": UB_WITH_SIMT} if name == "shared.ub" else {})
        for name, capacity in CAPACITY.items()
    )


def limits(uses: Sequence[ScopeUse] = ()) -> dict[str, int]:
    """Capacities a plan reports: each scope's, as the family's footprint ``uses`` see it (UB with SIMT code
    resident, for a fused epilogue: variant ``simt``)."""
    return {**CAPACITY, **{use.scope: use.capacity for use in uses if use.scope in CAPACITY}}


def rejection(case: Any) -> space.Rejection | None:
    return space.reject(case, scopes(), DIALECT)
