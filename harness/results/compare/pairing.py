"""Items timed in both runs, grouped (suite, backend, kind), with what judging them needs.

Contract: ``Paired`` holds the runs' timed ``Record``s by ``ItemKey``; ``in_run_reference``: an
item's vendor item, else the geometric mean of its group's other kernels (O(1) per item);
``noise_floor``, ``run_shifts``, ``group_drift``, ``model_changes``.  A problem id is read
through the kernel family (``problem_of``), never from the case id.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, NamedTuple, Sequence

from ...core.record_reader import RecordReader
from ...core.shard import placement
from ..compile_gate import compile_method, compile_shift
from . import shift_cause, verdicts
from ..compile_gate.compile_values import centre_of, compile_values, values_normalised
from ..files.record_fields import Item, Record
from ..files.error_text import headline
from .comparison import Drift, ItemKey, ModelChange
from .judgement import RUN_RATIO, Thresholds, VENDOR_RATIO, median_of


MIN_RUN_REFERENCE_ITEMS = 4  # other items a run-ratio reference needs
MIN_SPREAD_ITEMS = 6  # items a group needs before its item-to-item spread is estimated
NOISE_K = 4.0  # noise floor = NOISE_K robust standard deviations of that spread


def item_key(item: Item | Mapping[str, Any]) -> ItemKey:
    """The key of a typed item (a timed record as written: typed first)."""
    item = item if isinstance(item, Item) else Record.of(item)
    return ItemKey(item.suite, item.backend, item.kind, item.case_id)


def problem_of(item: Item) -> str:
    """The problem id of an item: ``problem_id``, which ``store.load_results`` reads through the
    item's kernel family; an item built elsewhere is read the same way."""
    return item.problem_id or RecordReader().read(item.raw).problem_id


def is_vendor(item: Item) -> bool:
    return item.config is None  # a vendor item has no kernel config (records of every family)


def modeled_cycles_of(rec: Item) -> float | None:
    model = (rec.plan or {}).get("schedule_model") or {}
    value = model.get("modeled_cycles_per_core")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


Group = tuple[str, str, str]  # suite, backend, kind


@dataclass(frozen=True)
class Paired:
    """Items timed in both runs, with their medians, grouped for the in-run references."""

    base: Mapping[ItemKey, Record]
    new: Mapping[ItemKey, Record]
    # what is computed once per comparison (keys by group, medians, group sums): compare stays
    # O(n log n) in items instead of recomputing a whole group for every item
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:  # records given as dicts (a test's) are typed here
        for side in ("base", "new"):
            object.__setattr__(self, side, {k: Record.of(r) for k, r in getattr(self, side).items()})

    def keys(self, group: Group) -> list[ItemKey]:
        if "keys" not in self.memo:
            by_group: dict[Group, list[ItemKey]] = {}
            for k in self.base:
                if k in self.new:
                    by_group.setdefault((k.suite, k.backend, k.kind), []).append(k)
            self.memo["keys"] = by_group
        return self.memo["keys"].get(group, [])

    def groups(self) -> list[Group]:
        return sorted({(k.suite, k.backend, k.kind) for k in self.base if k in self.new})

    def medians(self, key: ItemKey) -> tuple[float, float]:
        memo = self.memo.setdefault("medians", {})
        if key not in memo:
            memo[key] = (median_of(self.base[key].samples_s), median_of(self.new[key].samples_s))
        return memo[key]


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def on_gpu(key: ItemKey, where: str) -> ItemKey:
    """The key of one GPU's (one shard's: ``core.shard.placement``) copy of a vendor item in a
    multi-GPU or sharded run."""
    return ItemKey(key.suite, key.backend, key.kind, f"{key.case_id}@{where}")


def shards_of(paired: Paired, key: ItemKey) -> tuple[str | None, str | None]:
    """The shard of ``key`` in each run (None: an unsharded run)."""
    return paired.base[key].shard, paired.new[key].shard


def in_run_reference(paired: Paired, key: ItemKey, vendor_ok: bool) -> tuple[str, str, float, float] | None:
    """(basis, description, base reference, new reference) for judging ``key`` relative to
    its own run: the vendor item of its problem, else the geometric mean of the other
    kernels of its group (suite, backend, kind) timed in both runs."""
    rec = paired.base[key]
    if is_vendor(rec):
        return None
    group = (key.suite, key.backend, key.kind)
    vendor = ItemKey(key.suite, key.backend, key.kind, f"{problem_of(rec)}-vendor")
    # in each run, the vendor copy of the kernel's own GPU (shard) where the run has one per placement
    own_base = on_gpu(vendor, placement(paired.base[key].raw) or "")
    own_new = on_gpu(vendor, placement(paired.new[key].raw) or "")
    own_base, own_new = (own_base if own_base in paired.base else vendor), (own_new if own_new in paired.new else vendor)
    if vendor_ok and (own_base, own_new) != (vendor, vendor) and own_base in paired.base and own_new in paired.new:
        base_ref = median_of(paired.base[own_base].samples_s)
        new_ref = median_of(paired.new[own_new].samples_s)
        if base_ref > 0 and new_ref > 0:
            return VENDOR_RATIO, f"{vendor.case_id} on the same GPU (shard) in the same run", base_ref, new_ref
    if vendor_ok and vendor in paired.base and vendor in paired.new:
        base_ref, new_ref = paired.medians(vendor)
        if base_ref > 0 and new_ref > 0:
            return VENDOR_RATIO, f"{vendor.case_id} in the same run", base_ref, new_ref
    mine = shards_of(paired, key)
    where = " on the same shard" if mine != (None, None) else ""
    sums = _kernel_log_sums(paired, group, mine)
    if sums.count - (key in sums.own) < MIN_RUN_REFERENCE_ITEMS:  # too few on its shard: all of the run's
        sums, where = _kernel_log_sums(paired, group, None), ""
    count, bad, log_b, log_n, owns = sums
    own = owns.get(key)  # (bad, log b, log n) of this item when it is one of the group's kernels
    if own is not None:
        count, bad, log_b, log_n = count - 1, bad - own[0], log_b - own[1], log_n - own[2]
    if count < MIN_RUN_REFERENCE_ITEMS or bad:
        return None
    description = f"geometric mean of the {count} other {key.kind} items of the run{where}"
    return RUN_RATIO, description, math.exp(log_b / count), math.exp(log_n / count)


class _LogSums(NamedTuple):
    count: int
    bad: int
    log_b: float
    log_n: float
    own: dict[ItemKey, tuple[int, float, float]]


def _kernel_log_sums(paired: Paired, group: Group, shard: tuple[str | None, str | None] | None) -> _LogSums:
    """The log-median sums of the group's kernels (those measured on ``shard`` in both runs;
    None: all), once per group and shard, so each item's leave-one-out reference is O(1)."""
    memo = paired.memo.setdefault("kernel_sums", {})
    if (group, shard) not in memo:
        count, bad, log_b, log_n, own = 0, 0, 0.0, 0.0, {}
        for k in paired.keys(group):
            if is_vendor(paired.base[k]) or (shard is not None and shards_of(paired, k) != shard):
                continue
            b, n = paired.medians(k)
            item = (1, 0.0, 0.0) if b <= 0 or n <= 0 else (0, math.log(b), math.log(n))
            own[k] = item
            count, bad, log_b, log_n = count + 1, bad + item[0], log_b + item[1], log_n + item[2]
        memo[(group, shard)] = _LogSums(count, bad, log_b, log_n, own)
    return memo[(group, shard)]


def _relative_change(paired: Paired, key: ItemKey, reference: tuple[str, str, float, float]) -> float:
    base_median, new_median = paired.medians(key)
    return (new_median / reference[3]) / (base_median / reference[2]) - 1


def noise_floor(paired: Paired, group: Group, references: Mapping[ItemKey, tuple]) -> tuple[float | None, float]:
    """Robust spread (1.4826 x MAD of log changes) of the group's kernels' reference-relative
    changes, and the floor NOISE_K x spread.  It captures what the rank test cannot see:
    one item's samples are taken back to back, so they share the machine's state (a load
    burst on a shared VM, a clock step), and differ from run to run as a block."""
    logs = [
        math.log1p(_relative_change(paired, k, references[k]))
        for k in paired.keys(group)
        if references.get(k) is not None and min(paired.medians(k)) > 0
    ]
    if len(logs) < MIN_SPREAD_ITEMS:
        return None, 0.0
    center = statistics.median(logs)
    spread = 1.4826 * statistics.median(abs(x - center) for x in logs)
    return math.expm1(spread), math.expm1(NOISE_K * spread)


def _group_ratios(paired: Paired, keys: Sequence[ItemKey]) -> list[float]:
    out = []
    for k in keys:
        if paired.base[k].kind == "compile":  # the builds' centre, as the item rule (verdicts.min_of_n)
            base, new, centre = compile_values(paired.base[k].raw, paired.new[k].raw)
            b, n = centre_of(base, centre), centre_of(new, centre)
        else:
            b, n = paired.medians(k)
        if b > 0 and n > 0:
            out.append(n / b)
    return out


def _probe_ratios(paired: Paired, keys: Sequence[ItemKey]) -> list[float]:
    """new/base median of the machine probe timed after each build, per compile item."""
    out = []
    for k in keys:
        base, new = paired.base[k].machine_probe_cpu_s, paired.new[k].machine_probe_cpu_s
        if base and new and median_of(base) > 0:
            out.append(median_of(new) / median_of(base))
    return out


def run_shifts(paired: Paired, thresholds: Thresholds) -> list[verdicts.RunShift]:
    out = []
    for group in paired.groups():
        keys = paired.keys(group)
        ratios = _group_ratios(paired, [k for k in keys if not is_vendor(paired.base[k])])
        compiled = group[2] == "compile" and keys
        if compiled and all(values_normalised(paired.base[k].raw, paired.new[k].raw) for k in keys):
            vendor = [1.0]  # the probe is divided out of every build: what is left is not the machine's speed
            witness = "machine probe (divided out of every build)"
        elif group[2] == "compile":
            vendor = _probe_ratios(paired, keys)
            witness = "machine probe"
        else:
            vendor = [n / b for b, n in (paired.medians(k) for k in keys if is_vendor(paired.base[k])) if b > 0 and n > 0]
            witness = "vendor item"
        effect = thresholds.min_effect_for(group[0])
        if group[2] == "compile":
            effect = max(effect, verdicts.COMPILE_MIN_FACTOR)
        shift = verdicts.run_shift(*group, ratios, vendor, effect, thresholds.alpha, witness)
        if shift is not None and vendor == [1.0]:  # the probe divided out: its real move in the words, a loaded box NOISY
            kernels = [(paired.base[k], paired.new[k]) for k in keys if not is_vendor(paired.base[k])]
            shift = compile_shift.honest(shift, *compile_shift.machine_moves(kernels), effect)
        if shift is not None and group[2] == "compile":
            widths = (compile_method.width_difference(paired.base[k].raw, paired.new[k].raw) for k in keys)
            how = Counter(filter(None, widths))
            if how:
                shift = compile_shift.measured_differently(shift, how.most_common(1)[0][0])
        if shift is not None:
            kernels = [(paired.base[k], paired.new[k]) for k in keys if not is_vendor(paired.base[k])]
            if group[2] == "compile":  # the box's load as the builds met it (compile_shift.uncounted judges by it)
                shift = replace(shift, load_change=compile_shift.load_move(kernels))
            # a changed kernel body is the code, not the toolchain
            out.append(shift_cause.named(shift, [(b.raw, n.raw) for b, n in kernels]))
    return out


def group_drift(paired: Paired, group: Group, spread: float | None, floor: float) -> Drift | None:
    keys = [k for k in paired.keys(group) if not is_vendor(paired.base[k])]
    ratios = [n / b for b, n in map(paired.medians, keys) if b > 0 and n > 0]
    vendors = [k for k in paired.keys(group) if is_vendor(paired.base[k])]
    vendor_ratios = [n / b for b, n in map(paired.medians, vendors) if b > 0 and n > 0]
    if not ratios:
        return None
    vendor_change = _geomean(vendor_ratios) - 1 if vendor_ratios else None
    return Drift(*group, items=len(ratios), change=_geomean(ratios) - 1, vendor_change=vendor_change,
                 spread=spread, noise_floor=floor)


def model_changes(paired: Paired) -> list[ModelChange]:
    out = []
    for key in paired.base:
        if key not in paired.new:
            continue
        before, after = modeled_cycles_of(paired.base[key]), modeled_cycles_of(paired.new[key])
        if before is not None and after is not None and before != after:
            ii = [((r.plan or {}).get("pipeline") or {}).get("loop_ii_cycles_model") for r in (paired.base[key], paired.new[key])]
            out.append(ModelChange(key, before, after, ii[0], ii[1]))
    return out


def first_line(text: Any, limit: int = 140) -> str:
    """The informative line of an error text (harness/results/files/error_text.py)."""
    return headline(text, limit)
