"""On-chip footprint of a case per memory scope, checked before anything compiles.

Contract: ``check(case, scopes, dialect)`` gives a ``BudgetVerdict`` whose ``reason`` names the
scope, bytes, limit and buffers of a footprint (``Scope``, ``ScopeUse``) over budget: such a config
is skipped, since over-budget shared memory can pass lowering and fail only at launch.
``plan_overflow(plan)`` says the same after lowering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .dtypes import buffer_bytes, dtype_bits  # noqa: F401 - footprints size buffers with these

KiB = 1024

NEEDED = "needed"  # the requested pipeline depth must fit
MINIMUM = "minimum"  # one version of every buffer must fit (the scheduler may pick fewer)


@dataclass(frozen=True)
class Scope:
    """One on-chip memory of a backend.  ``variants`` are other capacities of the same memory under a named
    condition (``simt``: UB with SIMT vector code resident)."""

    name: str
    capacity: int
    enforced_on: str = NEEDED
    variants: Mapping[str, int] = field(default_factory=dict)

    def use(self, needed: int, minimum: int, variant: str | None = None, buffers: Sequence[str] = ()) -> "ScopeUse":
        """This scope's use; ``buffers`` names what fills it (words, e.g. ``"A_shared 3 x 16384 B"``)."""
        capacity = self.variants.get(variant, self.capacity) if variant else self.capacity
        return ScopeUse(self.name, needed, minimum, capacity, self.enforced_on, tuple(buffers))


def scope_named(scopes: Sequence[Scope], name: str) -> Scope:
    for scope in scopes:
        if scope.name == name:
            return scope
    raise ValueError(f"the backend declares no on-chip scope {name!r}; it has: {', '.join(s.name for s in scopes) or 'none'}")


@dataclass(frozen=True)
class ScopeUse:
    scope: str
    needed: int  # bytes at the requested pipeline depth
    minimum: int  # bytes with one version of every buffer
    capacity: int
    enforced_on: str  # "needed": the requested depth must fit; "minimum": one version must
    buffers: tuple[str, ...] = ()  # what fills the scope, in words (where the family says)

    @property
    def used(self) -> int:
        return self.needed if self.enforced_on == NEEDED else self.minimum

    @property
    def over(self) -> bool:
        return self.used > self.capacity

    def describe(self) -> str:
        used = self.used
        return f"{self.scope} needs {used} B, limit {self.capacity} B" + (f" ({', '.join(self.buffers)})" if self.buffers else "")


@dataclass(frozen=True)
class BudgetVerdict:
    uses: tuple[ScopeUse, ...]

    @property
    def fits(self) -> bool:
        return not any(u.over for u in self.uses)

    @property
    def reason(self) -> str:
        return "; ".join(u.describe() for u in self.uses if u.over)

    def to_dict(self) -> dict:
        return {"fits": self.fits, "scopes": {u.scope: {"needed": u.needed, "minimum": u.minimum, "capacity": u.capacity,
                                                        "enforced_on": u.enforced_on} for u in self.uses}}


def plan_overflow(plan: Any) -> str:
    """What a plan allocates beyond a scope's limit, in ``ScopeUse.describe``'s words; '' when it fits."""
    over = [f"{scope} needs {used} B, limit {plan.limits[scope]} B{_buffers_in(plan, scope)}"
            for scope, used in (plan.bytes_per_scope or {}).items()
            if (plan.limits or {}).get(scope) and isinstance(used, int) and used > plan.limits[scope]]
    return "; ".join(over)


def _buffers_in(plan: Any, scope: str) -> str:
    """`` (name versions x bytes B, ...)`` for the plan's buffers in ``scope``, largest first."""
    inside = [b for b in (plan.buffers or []) if b.get("scope") == scope and isinstance(b.get("bytes"), int)]
    inside.sort(key=lambda b: -b["bytes"])
    words = []
    for buf in inside:
        versions = buf.get("versions") or 1
        each = buf["bytes"] // versions
        words.append(f"{buf['name']} {versions} x {each} B {buf.get('dtype', '')}".rstrip() if versions > 1
                     else f"{buf['name']} {buf['bytes']} B {buf.get('dtype', '')}".rstrip())
    return f" ({', '.join(words)})" if words else ""


def check(case: Any, scopes: Sequence[Scope], dialect: str) -> BudgetVerdict:
    """The case's footprint (its family's body for ``dialect``) against ``scopes`` (its backend's memory)."""
    return BudgetVerdict(case.problem.family.footprint(case.problem, case.config, dialect, scopes))
