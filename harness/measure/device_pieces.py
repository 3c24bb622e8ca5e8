"""A backend's device items cut into pieces for the devices of one run, in the order devices take
them.  Pure functions.

Contract: ``plan_pieces(items, devices, cost)`` groups items by ``chunk_key`` (backend, problem):
one device, a piece per problem, fewest kernels first; several, each problem dealt round-robin
into ``devices`` pieces, largest ``cost`` first.  ``prefetch_order``; ``expected_cost(item)``: 1 +
the problem's TFLOP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..core.cases import VendorCase
from ..core.record import BenchItem


def chunk_key(item: BenchItem) -> tuple[str, Any]:
    return item.backend, item.case.problem


def expected_cost(item: BenchItem) -> float:
    """One unit plus one per TFLOP of the item's problem (nothing where the family cannot say)."""
    problem = item.case.problem
    try:
        flops = problem.family.flops(problem) or 0
    except Exception:  # noqa: BLE001 - a balancing estimate never fails a run
        flops = 0
    return 1.0 + flops / 1e12


def is_vendor(item: BenchItem) -> bool:
    return isinstance(item.case, VendorCase)


@dataclass(frozen=True)
class Piece:
    key: tuple[str, Any]
    kernels: tuple[BenchItem, ...]
    vendors: tuple[BenchItem, ...]  # every copy of the problem's vendor items
    cost: float
    spread: bool = False  # one of several devices' pieces: each device takes its own vendor copy

    def items_for(self, device: int) -> list[BenchItem]:
        if not self.spread:
            return [*self.kernels, *self.vendors]
        copies = [v for v in self.vendors if v.copy == device] or [v for v in self.vendors if v.copy is None]
        return [*self.kernels, *copies]

    @property
    def label(self) -> str:
        problem = self.key[1]
        return str(getattr(problem, "problem_id", problem))


def plan_pieces(items: Sequence[BenchItem], devices: int,
                cost: Callable[[BenchItem], float] = expected_cost) -> list[Piece]:
    groups: dict[tuple[str, Any], list[BenchItem]] = {}
    for item in items:
        groups.setdefault(chunk_key(item), []).append(item)
    devices = max(1, devices)
    pieces: list[Piece] = []
    group_cost = {key: sum(cost(i) for i in members if not is_vendor(i)) for key, members in groups.items()}
    cheapest = min(group_cost, key=lambda k: group_cost[k]) if group_cost else None
    for key, members in groups.items():
        kernels = [i for i in members if not is_vendor(i)]
        vendors = tuple(i for i in members if is_vendor(i))
        if devices == 1:
            deals = [kernels]
        else:
            count = 2 * devices if key == cheapest and len(kernels) >= 4 * devices else devices  # the end: finer
            deals = [kernels[d::count] for d in range(count)]
            deals = [d for d in deals if d] or ([[]] * devices if vendors else [])
        pieces += [Piece(key, tuple(deal), vendors, sum(cost(i) for i in deal), devices > 1) for deal in deals]
    if devices > 1:
        pieces.sort(key=lambda p: -p.cost)  # stable: ties keep collection order
    else:
        pieces.sort(key=lambda p: len(p.kernels))  # fewest builds first (see the contract); stable
    return pieces


def prefetch_order(cases: Sequence[Any], devices: int, device: int) -> list[Any]:
    if not cases:
        return []
    items = [BenchItem("", "device", c) for c in cases]
    pieces = plan_pieces(items, devices)
    start = device % len(pieces) if devices > 1 else 0
    return [i.case for p in pieces[start:] + pieces[:start] for i in p.kernels]
