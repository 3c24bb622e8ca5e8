"""The shards of one run (``--tlbench-shard=I/N`` on N machines) put back into one results file.

Contract: ``merge_shards(shards)`` takes the shards' ``Results`` and returns a ``MergedRun``
(``document``, ``missing_shards``, ``missing_items``, ``notes``), or raises ``ResultsError`` for
a file that is no shard, shards of another run, a shard given twice or an item twice (vendor
copies excepted).  The merged document holds every shard's items (each naming its ``shard``),
the machine info the shards agree on with each shard's own (``shard_document``), and a
``tlbench.sharded`` note (``partial`` where shards or items are missing).
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from ...core.record import EXTRA_KEY, SCHEMA_VERSION
from ...core.shard import ShardSpec
from .store import Results, ResultsError

SHARD_KEY = "shard"
SHARDED_KEY = "sharded"


@dataclass(frozen=True)
class Shard:
    results: Results
    note: dict[str, Any]

    @property
    def label(self) -> str:
        return str(self.note.get("label"))

    @property
    def index(self) -> int:
        return int(self.note["index"])

    @property
    def where(self) -> str:
        return f"{self.results.path} (shard {self.label})"

    def commit(self) -> tuple[str, str]:
        info = self.results.document.get("commit_info") or {}
        return str(info.get("id") or "unknown"), str(info.get("source_digest") or "unknown")

    def nodeids(self) -> list[str]:
        out = [b.get("fullname") for b in self.results.document["benchmarks"]]
        out += [r.nodeid for r in (*self.results.failures, *self.results.skips)]
        return [n for n in out if n]


@dataclass(frozen=True)
class MergedRun:
    document: dict[str, Any]
    missing_shards: tuple[str, ...] = ()
    missing_items: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def partial(self) -> bool:
        return bool((self.document.get(EXTRA_KEY) or {}).get("partial"))


NOTE_TYPES: dict[str, tuple[type, ...]] = {  # the shard note's fields and their JSON types (None allowed where optional)
    "index": (int,), "count": (int,), "run_digest": (str,), "run_items": (list,), "settings": (dict,),
    "label": (str, type(None)), "host": (str, type(None)), "selected": (int, type(None)),
}


def _note_problem(note: dict[str, Any]) -> str | None:
    """Why a shard note cannot be read (a field of the wrong type), None when it can."""
    for name, types in NOTE_TYPES.items():
        value = note.get(name)
        if isinstance(value, bool) or not isinstance(value, types):
            if name in note or type(None) not in types:
                return f"tlbench.shard.{name} is {value!r:.40}, not {' or '.join(t.__name__ for t in types if t is not type(None))}"
    if not all(isinstance(n, str) for n in note["run_items"]):
        return "tlbench.shard.run_items holds something that is not a node id"
    return None


def _shard(results: Results) -> Shard:
    note = (results.document.get(EXTRA_KEY) or {}).get(SHARD_KEY)
    if not isinstance(note, dict) or not {"index", "count", "run_digest", "run_items", "settings"} <= set(note):
        raise ResultsError(
            f"{results.path}: not a shard of a sharded run (no tlbench.shard note); merge the files written by "
            "pytest --tlbench-shard=I/N --benchmark-json=..."
        )
    problem = _note_problem(note)
    if problem:
        raise ResultsError(f"{results.path}: {problem}; the shard file was edited or is damaged: re-run that shard")
    try:
        ShardSpec.parse(f"{note['index']}/{note['count']}")
    except ValueError:
        raise ResultsError(f"{results.path}: tlbench.shard says shard {note['index']}/{note['count']}, which no run has") from None
    return Shard(results, note)


def _check_commit(shards: Sequence[Shard]) -> None:
    counts = Counter(s.commit() for s in shards)
    first_seen = {s.commit(): k for k, s in reversed(list(enumerate(shards)))}
    run = max(counts, key=lambda c: (counts[c], -first_seen[c]))
    for s in shards:
        commit, source = s.commit()
        if (commit, source) == run:
            continue
        if commit != run[0]:
            raise ResultsError(
                f"{s.where} is of commit {commit}, the other shards of commit {run[0]}; every shard of a run "
                f"runs one commit: re-run shard {s.label} at {run[0]}"
            )
        raise ResultsError(
            f"{s.where} ran other code than the other shards (commit {commit} both, source digest {source} vs "
            f"{run[1]}: an edited or dirty tree?); re-run shard {s.label} from the same tree"
        )


def _check_one_run(shards: Sequence[Shard]) -> None:
    first = shards[0]
    seen: dict[int, Shard] = {}
    for s in shards:
        if s.note["count"] != first.note["count"]:
            raise ResultsError(f"{s.where} is one of {s.note['count']} shards, {first.where} one of {first.note['count']}: not one run")
        a, b = first.note["settings"], s.note["settings"]
        differs = [f"{k} {a.get(k)!r} -> {b.get(k)!r}" for k in sorted(set(a) | set(b))
                   if a.get(k) != b.get(k)]
        if differs:
            raise ResultsError(f"{s.where} ran with other options than {first.where}: {'; '.join(differs)}; give every shard the same options")
        if s.note["run_digest"] != first.note["run_digest"]:
            raise ResultsError(
                f"{s.where} split another set of items ({len(s.note['run_items'])} in its run) than {first.where} "
                f"({len(first.note['run_items'])}): every shard collects the same suites with the same options and -k"
            )
        if s.index in seen:
            raise ResultsError(f"shard {s.label} given twice: {seen[s.index].results.path} and {s.results.path}")
        seen[s.index] = s


def _vendor_copy(rec: dict[str, Any]) -> bool:
    """A vendor item's record: it says so (``config`` present and null); a record that says
    nothing about its config is held to the kernels' rule."""
    return "config" in rec and rec["config"] is None


def _check_items_once(shards: Sequence[Shard]) -> None:
    """Every record of every shard: an item of the run, once per shard (timed, failed or
    skipped, never two of those), and a kernel in one shard only (a vendor item's copies: one
    per shard)."""
    owner: dict[str, Shard] = {}
    run_items = set(shards[0].note["run_items"])
    for s in shards:
        here: dict[str, str] = {}
        for status, items in (("timed", s.results.timed), ("failed", s.results.failures), ("skipped", s.results.skips)):
            for item in items:
                nodeid = item.fullname or item.nodeid
                if nodeid not in run_items:
                    raise ResultsError(f"{s.where} has a result for {nodeid}, which is not an item of the run")
                if nodeid in here:
                    raise ResultsError(f"{s.where} holds item {nodeid} twice ({here[nodeid]} and {status}): the shard file "
                                       "was edited or is damaged; re-run that shard")
                here[nodeid] = status
                if _vendor_copy(item.raw):  # each shard measures its own copy
                    continue
                if nodeid in owner and owner[nodeid] is not s:
                    raise ResultsError(f"item {nodeid} is in {owner[nodeid].where} and in {s.where}: each item belongs to one shard")
                owner[nodeid] = s


def _joined(values: list[Any]) -> Any:
    distinct: list[Any] = []
    for v in values:
        if v not in distinct:
            distinct.append(v)
    if len(distinct) == 1:
        return distinct[0]
    if all(isinstance(v, list) for v in distinct):
        return sorted({str(x) for v in distinct for x in v})
    return " | ".join(str(v) for v in distinct)


def _backends_info(shards: Sequence[Shard]) -> dict[str, Any]:
    per_backend: dict[str, list[tuple[Shard, dict[str, Any]]]] = {}
    for s in shards:
        infos = ((s.results.document["machine_info"].get(EXTRA_KEY) or {}).get("backends")) or {}
        for name, info in infos.items():
            per_backend.setdefault(name, []).append((s, info))
    out = {}
    for name, pairs in per_backend.items():
        keys = list(dict.fromkeys(k for _, info in pairs for k in info))
        merged = {k: _joined([info.get(k) for _, info in pairs]) for k in keys}
        merged["hosts"] = list(dict.fromkeys(str(s.note.get("host")) for s, _ in pairs))
        merged["shards"] = [s.label for s, _ in pairs]
        out[name] = merged
    return out


def _machine_info(shards: Sequence[Shard]) -> dict[str, Any]:
    machine = copy.deepcopy(shards[0].results.document["machine_info"])
    machine["node"] = ", ".join(dict.fromkeys(str(s.results.document["machine_info"].get("node")) for s in shards))
    extra = dict(machine.get(EXTRA_KEY) or {"schema_version": SCHEMA_VERSION})
    extra["backends"] = _backends_info(shards)
    extra["shards"] = {
        s.label: {
            "host": s.note.get("host"),
            "node": s.results.document["machine_info"].get("node"),
            "cpu": {k: (s.results.document["machine_info"].get("cpu") or {}).get(k) for k in ("brand_raw", "count")},
            "backends": ((s.results.document["machine_info"].get(EXTRA_KEY) or {}).get("backends")) or {},
        }
        for s in shards
    }
    machine[EXTRA_KEY] = extra
    return machine


def _coverage(shards: Sequence[Shard], count: int) -> tuple[list[str], list[str], list[str]]:
    present = {s.index for s in shards}
    missing_shards = [f"{i}/{count}" for i in range(1, count + 1) if i not in present]
    seen = {n for s in shards for n in s.nodeids()}
    missing = [n for n in shards[0].note["run_items"] if n not in seen]
    reasons = []
    if missing_shards:
        reasons.append(f"shard{'s' if len(missing_shards) > 1 else ''} {', '.join(missing_shards)} of {count} not merged")
    for s in shards:
        inner = (s.results.document.get(EXTRA_KEY) or {}).get("partial")
        if inner:
            told = inner.get("reasons") if isinstance(inner, dict) else None
            reasons.append(f"{s.where} is itself partial" + (f": {'; '.join(map(str, told))}" if told else ""))
    for s in shards:
        lack = int(s.note.get("selected") or 0) - len(set(s.nodeids()))
        if lack > 0:
            reasons.append(f"{s.where}: {lack} of its {s.note['selected']} items have no result")
    if missing:
        reasons.append(f"{len(missing)} of the run's {len(shards[0].note['run_items'])} items have no result")
    return missing_shards, missing, reasons


def merge_shards(inputs: Sequence[Results]) -> MergedRun:
    if not inputs:
        raise ResultsError("nothing to merge: give the shard files (SHARD.json ...)")
    shards = sorted((_shard(r) for r in inputs), key=lambda s: s.index)
    _check_commit(shards)
    _check_one_run(shards)
    _check_items_once(shards)
    count = int(shards[0].note["count"])
    missing_shards, missing, reasons = _coverage(shards, count)
    base = shards[0].results.document
    tops = [s.results.document.get(EXTRA_KEY) or {} for s in shards]
    top = {k: v for k, v in tops[0].items() if k not in (SHARD_KEY, "journal", "partial", "recovered_from")}
    seeds = {t.get("input_seed") for t in tops}
    setup: dict[str, float] = {}
    for t in tops:
        for backend, seconds in (t.get("setup_s") or {}).items():
            setup[backend] = max(setup.get(backend, 0.0), seconds)
    top.update({
        "backends": sorted({b for t in tops for b in (t.get("backends") or [])}),
        "input_seed": seeds.pop() if len(seeds) == 1 else None,
        "setup_s": setup,
        "failed": [r for t in tops for r in t.get("failed") or []],
        "skipped": [r for t in tops for r in t.get("skipped") or []],
        "settings": shards[0].note["settings"],
        SHARDED_KEY: {
            "count": count,
            "run_digest": shards[0].note["run_digest"],
            "run_items": len(shards[0].note["run_items"]),
            "shards": [
                {
                    "label": s.label, "file": s.results.path, "host": s.note.get("host"), "selected": s.note.get("selected"),
                    "timed": len(s.results.timed), "failed": len(s.results.failures), "skipped": len(s.results.skips),
                    "input_seed": t.get("input_seed"), "setup_s": t.get("setup_s") or {}, "phases_s": t.get("phases_s") or {},
                    "datetime": s.results.document.get("datetime"), "journal": t.get("journal"),
                }
                for s, t in zip(shards, tops)
            ],
        },
    })
    if reasons:
        top["partial"] = {
            "reasons": reasons, "missing_shards": missing_shards, "missing": missing,
            "items_collected": len(shards[0].note["run_items"]), "items_present": len(shards[0].note["run_items"]) - len(missing),
        }
    document = {
        **{k: v for k, v in base.items() if k not in ("benchmarks", "machine_info", EXTRA_KEY)},
        "machine_info": _machine_info(shards),
        "commit_info": copy.deepcopy(base.get("commit_info") or {}),
        "benchmarks": sorted((b for s in shards for b in s.results.document["benchmarks"]),
                             key=lambda b: (b.get("fullname") or "", str(((b.get("extra_info") or {}).get(EXTRA_KEY) or {}).get("shard")))),
        "datetime": max(str(s.results.document.get("datetime") or "") for s in shards),
        EXTRA_KEY: top,
    }
    notes = []
    for name, info in document["machine_info"][EXTRA_KEY]["backends"].items():
        beds = {str(info.get(k)) for k in ("accelerator", "tilelang", "target")}
        if any(" | " in b for b in beds):
            notes.append(f"note: the shards ran {name} on different testbeds ({'; '.join(sorted(beds))}); the history keeps each shard's")
    return MergedRun(document, tuple(missing_shards), tuple(missing), tuple(notes))


def shard_document(document: dict[str, Any], shard: str | None) -> dict[str, Any]:
    """The document as ``shard`` saw it (its machine_info); the document itself for no shard."""
    machine = document.get("machine_info") or {}
    shards = (machine.get(EXTRA_KEY) or {}).get("shards") or {}
    own = shards.get(shard) if shard else None
    if not own:
        return document
    return {**document, "machine_info": {**machine, EXTRA_KEY: {**machine[EXTRA_KEY], "backends": own.get("backends") or {}}}}
