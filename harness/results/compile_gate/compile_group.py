"""One group's compile items (suite, backend, kind) as the compile rule judges them, built once.

Contract: ``compile_group(paired, group)``: the ``CompileGroup`` (memoised on ``paired``):
``values[key]``, ``reference(key)`` (leave-one-out geometric mean of the others' centres, of its
own shard where it has enough, or None), ``floor`` (``COMPILE_NOISE_K`` robust SDs, else
``pooled_floor``) and ``moves(key)`` (the probe's, CPU seconds' and counts' moves: witnesses).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Sequence

from . import count_verdicts

from ..compare import verdicts
from ..compare.comparison import ItemKey
from .compile_values import centre_of, compile_values
from ..compare.pairing import MIN_RUN_REFERENCE_ITEMS, MIN_SPREAD_ITEMS, Group, Paired
from ..files.record_fields import Record


@dataclass(frozen=True)
class Moves:
    probe: float | None  # new/base - 1 of the median machine probe
    cpu: float | None  # of the builds' own CPU seconds (their centre)
    instructions: float | None  # of the median instruction count, where both runs counted it alike


def _change(base: Sequence[float] | None, new: Sequence[float] | None, centre: str = "median") -> float | None:
    if not base or not new:
        return None
    b, n = centre_of(base, centre), centre_of(new, centre)
    return n / b - 1 if b > 0 and n > 0 else None


@dataclass
class CompileGroup:
    values: dict[ItemKey, tuple[list[float], list[float], str]]
    records: dict[ItemKey, tuple[Record, Record]]
    logs: dict[ItemKey, tuple[float, float]]  # log centre, base and new
    shard: dict[ItemKey, tuple[Any, Any]]
    sums: dict[tuple[Any, Any], tuple[int, float, float]]  # per shard pair: count, sum of base logs, of new logs
    total: tuple[int, float, float]
    floor: float | None = None  # set by ``compile_group`` (it may need the other groups)
    spread_logs: list[float] = field(default_factory=list)

    def reference(self, key: ItemKey) -> tuple[float, float, int] | None:
        if key not in self.logs:
            return None
        own_b, own_n = self.logs[key]
        for count, sum_b, sum_n in (self.sums[self.shard[key]], self.total):
            others = count - 1
            if others >= MIN_RUN_REFERENCE_ITEMS:
                return math.exp((sum_b - own_b) / others), math.exp((sum_n - own_n) / others), others
        return None

    def moves(self, key: ItemKey) -> Moves:
        base, new = self.records[key]
        centre = self.values[key][2]
        probe = _change(base.machine_probe_cpu_s, new.machine_probe_cpu_s)
        cpu = _change(base.cpu_samples_s, new.cpu_samples_s, centre)
        counts = None
        b, n = count_verdicts.counts_of(base), count_verdicts.counts_of(new)
        if b is not None and n is not None and count_verdicts.incomparable(base, new) is None:
            counts = statistics.median(n) / statistics.median(b) - 1
        return Moves(probe, cpu, counts)


def _spread_floor(logs: Sequence[float]) -> float:
    center = statistics.median(logs)
    return math.expm1(verdicts.COMPILE_NOISE_K * 1.4826 * statistics.median(abs(x - center) for x in logs))


def _build(paired: Paired, group: Group) -> CompileGroup:
    keys = paired.keys(group)
    records = {k: (paired.base[k], paired.new[k]) for k in keys}
    values = {k: compile_values(records[k][0].raw, records[k][1].raw) for k in keys}
    logs = {k: (math.log(centre_of(b, c)), math.log(centre_of(n, c))) for k, (b, n, c) in values.items()
            if centre_of(b, c) > 0 and centre_of(n, c) > 0}  # a build of 0 s (all samples 0) is in no reference
    shard = {k: (records[k][0].shard, records[k][1].shard) for k in keys}
    sums: dict[tuple[Any, Any], tuple[int, float, float]] = {}
    for k in logs:
        count, sum_b, sum_n = sums.get(shard[k], (0, 0.0, 0.0))
        sums[shard[k]] = (count + 1, sum_b + logs[k][0], sum_n + logs[k][1])
    total = (len(logs), sum(b for b, _ in logs.values()), sum(n for _, n in logs.values()))
    found = CompileGroup(values, records, logs, shard, sums, total)
    for k in logs:
        ref = found.reference(k)
        rb, rn = (math.log(ref[0]), math.log(ref[1])) if ref is not None else (0.0, 0.0)
        found.spread_logs.append((logs[k][1] - rn) - (logs[k][0] - rb))
    return found


def _built(paired: Paired, group: Group) -> CompileGroup:
    memo = paired.memo.setdefault("compile_group_built", {})
    if group not in memo:
        memo[group] = _build(paired, group)
    return memo[group]


def pooled_floor(paired: Paired, group: Group) -> float:
    """The resolution of a compile group too small to measure its own spread: the item-to-item
    spread of every compile item of the same backend in the run (each relative to its own
    group); with fewer than ``MIN_SPREAD_ITEMS`` of those, none (the factor alone).  Judged with
    no floor at all, a group of four stream-K compile items called an A/A night's item SLOWER on
    its min-of-n factor alone."""
    memo = paired.memo.setdefault("compile_pooled_floor", {})
    if group[1:] not in memo:
        pooled: list[float] = []
        for other in paired.groups():
            if other[1:] == group[1:]:
                pooled += _built(paired, other).spread_logs
        memo[group[1:]] = _spread_floor(pooled) if len(pooled) >= MIN_SPREAD_ITEMS else 0.0
    return memo[group[1:]]


def compile_group(paired: Paired, group: Group) -> CompileGroup:
    found = _built(paired, group)
    if found.floor is None:
        logs = found.spread_logs
        found.floor = _spread_floor(logs) if len(logs) >= MIN_SPREAD_ITEMS else pooled_floor(paired, group)
    return found
