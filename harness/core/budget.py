"""On-chip footprint of a case per memory scope, checked before anything compiles.

Contract: a backend describes its on-chip memory as ``Scope``s (name, capacity, whether the requested pipeline depth
or one version must fit, and named capacity variants such as UB with SIMT code resident); a kernel family knows
which buffers its body allocates in which scope for a backend's dialect and turns a (problem, config) into one
``ScopeUse`` per scope it uses (``KernelFamily.footprint``).  ``check(case, scopes, dialect)`` joins the two into a
``BudgetVerdict`` whose ``reason`` names the scope, the bytes needed and the capacity, and the buffers where the
family names them, e.g. ``shared.dyn needs 262144 B, limit 232448 B (A_shared + B_shared 4 x 65536 B)``.  A config
over budget is skipped with that reason (and the backend's name: harness/measure/outcome.py) instead of being
compiled; a family that declares no footprint for a dialect is checked after lowering instead, from the compiled
kernel's buffers (``plan_overflow``, the same words, each buffer of the scope with its versions and bytes).  A
footprint counts every element at its dtype's real size (``buffer_bytes``, harness/core/dtypes.py: fp8 one byte,
int4 half a byte; an unknown dtype raises).  Nothing here knows a backend or a family.

Why this exists on top of the compiler: shared memory over the limit can pass lowering and the native compiler and
only fail at launch, and an accumulator over its scope can lower without error (the backends' limits modules say
where, with the measurements).
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
    def over(self) -> bool:
        used = self.needed if self.enforced_on == "needed" else self.minimum
        return used > self.capacity

    def describe(self) -> str:
        used = self.needed if self.enforced_on == "needed" else self.minimum
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
        return {
            "fits": self.fits,
            "scopes": {
                u.scope: {"needed": u.needed, "minimum": u.minimum, "capacity": u.capacity, "enforced_on": u.enforced_on}
                for u in self.uses
            },
        }


def plan_overflow(plan: Any) -> str:
    """What a compiled kernel's plan (``bytes_per_scope`` against its ``limits``) allocates beyond a capacity, in
    ``ScopeUse.describe``'s words; '' when it fits.  The check for a kernel whose family declares no footprint, made
    after lowering."""
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
