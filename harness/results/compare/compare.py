"""Pair the items of two runs and judge them (run vs run).  Data only: no printing.

Contract: ``compare_runs(base, new, thresholds)`` pairs two ``Results`` by ``ItemKey`` and
returns a ``RunComparison``; ``CompareError`` for other backends, testbed or method (unless
allowed).  Each pair is judged by the rule ``compare_rules.choose`` picks, relative to its in-run
reference (pairing.py); NEW / MISSING / FAILED for unpaired items; instruction counts and plans
give verdicts too.  Only kernels gate (SLOWER, a new FAILED, MISSING unless ``accept_missing``).
"""

from __future__ import annotations

from typing import Iterable, Mapping, TypeVar
from ...core.backend_traits import TraitsCatalog
from . import compare_rules, method_match, plan_verdicts, verdicts
from ..compile_gate import compile_method, count_verdicts
from ...core.shard import placement
from ..files.record_fields import Item
from ..files.store import Results
from .comparison import CompareError, ItemComparison, ItemKey, RunComparison, TestbedPair
from .judgement import Thresholds, Verdict
from .pairing import Group, NOISE_K, Paired, first_line, group_drift, in_run_reference, is_vendor, item_key, model_changes, on_gpu, noise_floor, problem_of, run_shifts

R = TypeVar("R", bound=Item)  # a timed Record, or a failed/skipped Outcome


def index_items(results: Results, items: Iterable[R]) -> dict[ItemKey, R]:
    """The items by key; an item twice (other than a vendor item's copies on named devices or
    shards) raises ``CompareError`` - export refuses the same file by the same rule."""
    out: dict[ItemKey, R] = {}
    for rec in items:
        key = item_key(rec)
        if key in out:
            first = out[key]
            where, first_at = placement(rec.raw), placement(first.raw)
            if not (is_vendor(rec) and where and first_at not in (None, where)):
                raise CompareError(f"{results.path}: item {key.kind}-{key.backend}-{key.case_id} appears twice"
                                   f"{'' if where is None else ' at ' + str(where)}, and which copy is the "
                                   "item's cannot be told; keep one copy in the file, or re-run the suite")
            # a multi-GPU (or sharded) run measures the vendor item once per GPU (shard): each copy
            # is also kept under its placement, the plain key stays the first copy (for pairing with a 1-GPU run)
            out.setdefault(on_gpu(key, first_at), first)
            out[on_gpu(key, where)] = rec
            continue
        out[key] = rec
    return out


def _copy_of(key: ItemKey, paired_with: Mapping[ItemKey, object]) -> bool:
    """A placement copy of a vendor item (``case_id@placement``) whose plain item the other run has."""
    case_id, at, _ = key.case_id.partition("@")
    return bool(at) and ItemKey(key.suite, key.backend, key.kind, case_id) in paired_with


def _check_backends(base: Results, new: Results) -> None:
    """Same backends, or NEW holds some of BASE's (a backend missing from NEW: its items are
    MISSING, and gate like any other missing item)."""
    if set(new.backends) and set(new.backends) < set(base.backends):
        return
    if set(base.backends) != set(new.backends):
        raise CompareError(
            f"different backends: {base.name} has {', '.join(base.backends) or 'none'}, "
            f"{new.name} has {', '.join(new.backends) or 'none'}; a cross-run compare needs runs of the same "
            "backends (use --across-backends to compare backends)"
        )


def _testbeds(base: Results, new: Results, allow_mismatch: bool) -> tuple[TestbedPair, ...]:
    pairs = tuple(TestbedPair(b, base.testbed(b), new.testbed(b)) for b in sorted(set(base.backends) & set(new.backends)))
    for pair in pairs:
        if pair.differences and not allow_mismatch:
            raise CompareError(
                f"testbed differs for {pair.backend}: {'; '.join(pair.differences)}; compare runs of one testbed, "
                "or pass --allow-testbed-mismatch to compare anyway (the report says so)"
            )
    return pairs


def _methods(base: Results, new: Results, paired: Paired, allow_mismatch: bool) -> method_match.MethodCheck:
    """The paired items' measurement methods, refused where they differ unless allowed."""
    catalog = TraitsCatalog.from_entry_points()
    pairs = ((key, rec, paired.new[key]) for key, rec in paired.base.items() if key in paired.new)
    check = method_match.check_methods(pairs, base.name, new.name, catalog.get)
    if check.mismatches and not allow_mismatch:
        raise CompareError(method_match.refusal(check.mismatches, lambda b: tuple(getattr(catalog.get(b), "method_options", ()))))
    return check


def _timed_pair(paired: Paired, key: ItemKey, thresholds: Thresholds, reference: tuple | None,
                floor: tuple[float, str]) -> ItemComparison:
    """The pair judged by the one rule that applies to it (compare_rules.choose), with the rank
    tests on the raw samples and on the ratios to the in-run reference shown beside it."""
    facts = compare_rules.PairFacts(paired, key, thresholds, reference, floor)
    decision = compare_rules.choose(facts).decide(facts)
    base_rec, new_rec = facts.base, facts.new
    vendor = is_vendor(base_rec)
    notes = [f"{side} run: {verdicts.status_of(r)}" for side, r in (("base", base_rec), ("new", new_rec)) if verdicts.status_of(r) != "clean"]
    how = (compile_method.width_difference(base_rec.raw, new_rec.raw)
           if key.kind == "compile" else None)
    if how and how not in decision.judgement.reason:
        notes.append(how)
    detail = "; ".join((["the vendor reference: shown, not gated"] if vendor else []) + notes)
    return ItemComparison(
        key=key, problem=problem_of(base_rec), verdict=decision.judgement.verdict, gates=not vendor,
        decided_by=decision.judgement.basis, time=facts.time, relative=facts.relative,
        decided=decision.judgement, min_effect=facts.min_effect, detail=detail, rule=decision.rule,
        reference=decision.reference or (reference[1] if reference is not None else ""))


def _unpaired(key, rec, verdict, gates, detail, thresholds) -> ItemComparison:
    return ItemComparison(key=key, problem=problem_of(rec), verdict=verdict, gates=gates,
                          min_effect=thresholds.min_effect_for(key.suite), detail=detail)


def compare_runs(
    base: Results, new: Results, thresholds: Thresholds | None = None, allow_testbed_mismatch: bool = False,
    accept_missing: bool = False, allow_method_mismatch: bool = False,
) -> RunComparison:
    thresholds = thresholds or Thresholds()
    _check_backends(base, new)
    testbeds = _testbeds(base, new, allow_testbed_mismatch)
    base_timed, new_timed = index_items(base, base.timed), index_items(new, new.timed)
    base_failed, new_failed = index_items(base, base.failures), index_items(new, new.failures)
    new_skipped = index_items(new, new.skips)
    paired = Paired(base_timed, new_timed)
    methods = _methods(base, new, paired, allow_method_mismatch)
    libraries = {t.backend: (t.base.vendor_library, t.new.vendor_library) for t in testbeds}
    notes = [
        f"{b}: vendor library differs ({old} -> {now}); ratios to the vendor item not used"
        for b, (old, now) in libraries.items()
        if old != now
    ] + [f"backend {b}: not in {new.name} at all (every item of it MISSING)" for b in sorted(set(base.backends) - set(new.backends))]
    notes += list(methods.notes)

    references = {
        key: in_run_reference(paired, key, vendor_ok=len(set(libraries.get(key.backend, (None, None)))) == 1)
        for key in base_timed
        if key in new_timed
    }
    floors: dict[Group, tuple[float, str]] = {}
    drifts = []
    for group in paired.groups():
        spread, floor = noise_floor(paired, group, references)
        floors[group] = (floor, f"{NOISE_K:g} x the ±{spread:.1%} item-to-item spread of {group[2]} items, on a log scale" if spread else "")
        drift = group_drift(paired, group, spread, floor)
        if drift is not None:
            drifts.append(drift)

    items: list[ItemComparison] = []
    for key, base_rec in base_timed.items():
        if key not in new_timed and _copy_of(key, new_timed):  # one more GPU's (shard's) vendor copy: its item is paired
            continue
        if key in new_timed:
            floor = floors.get((key.suite, key.backend, key.kind), (0.0, ""))
            items.append(_timed_pair(paired, key, thresholds, references[key], floor))
        elif key in new_failed:
            fail = new_failed[key]
            detail = f"failed in new [{fail.stage}]: {first_line(fail.error)}"
            items.append(_unpaired(key, base_rec, Verdict.FAILED, not is_vendor(base_rec), detail, thresholds))
        elif key in new_skipped:
            detail = f"skipped in new: {first_line(new_skipped[key].reason)}"
            items.append(_unpaired(key, base_rec, Verdict.MISSING, not accept_missing, detail, thresholds))
        else:  # not measured: gates unless the caller accepts a narrower run
            items.append(_unpaired(key, base_rec, Verdict.MISSING, not accept_missing, "not in new", thresholds))
    for key, fail in new_failed.items():
        if key in base_timed:
            continue
        was = "also failed in base" if key in base_failed else "not timed in base"
        detail = f"failed in new [{fail.stage}]: {first_line(fail.error)} ({was})"
        items.append(_unpaired(key, fail, Verdict.FAILED, key not in base_failed, detail, thresholds))
    for key, rec in new_timed.items():
        if key not in base_timed and not _copy_of(key, base_timed):
            detail = "failed in base" if key in base_failed else "not in base"
            items.append(_unpaired(key, rec, Verdict.NEW, False, detail, thresholds))
    counted = count_verdicts.compare_counts(paired, thresholds)  # instruction counts: rows of their own
    return RunComparison(
        base_path=base.path, new_path=new.path, thresholds=thresholds, testbeds=testbeds,
        items=tuple(items) + counted.items, method_mismatches=methods.mismatches,
        drifts=tuple(drifts),
        model_changes=tuple(model_changes(paired)), notes=tuple(notes) + counted.notes,
        shifts=count_verdicts.with_count_witness(run_shifts(paired, thresholds), counted),
        plans=plan_verdicts.compare_plans(paired, thresholds))
