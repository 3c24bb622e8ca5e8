"""The run journal: every finished item on disk at once, and a results file rebuilt from it.

Contract: ``Journal(path).append(entry)`` / ``append_many``: JSON lines in one ``os.write`` on an
``O_APPEND`` descriptor, then ``fsync``; line types ``run``, ``collected``, ``backend``, ``item``,
``end``.  ``read_journal(path)`` returns ``JournalContents`` (last line per item wins) or raises
``JournalError``; ``not_the_item(...)`` says why an item line must not stand for an item.
``recover_document(contents)``: a pytest-benchmark document whose ``tlbench.partial`` says what
is missing.  ``atomic_write_text`` is re-exported for the journal's writers.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ...core.atomic_file import atomic_write_text  # noqa: F401  (re-exported: the journal's writers use it)
from ...core.record import EXTRA_KEY, SCHEMA_VERSION

JOURNAL_VERSION = 1
JOURNAL_SUFFIX = ".journal.jsonl"
FIRST_LINE_BYTES = 4 * 2**20  # a run header (machine and commit info) is far smaller
MAX_LINE_BYTES = 64 * 2**20  # one item line: its record and pytest-benchmark's entry with every sample


class JournalError(ValueError):
    """A journal that cannot be used; ``str()`` is one line naming the file."""


def journal_path_for(result_json: str | Path) -> Path:
    """``out.json`` -> ``out.journal.jsonl``, in the same directory."""
    path = Path(result_json)
    return path.with_name((path.stem if path.suffix == ".json" else path.name) + JOURNAL_SUFFIX)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat()


class Journal:
    """Appends lines to one journal file; each ``append`` is on disk when it returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def repair_torn_tail(self) -> int:
        """Drop a torn last line (a run killed while writing it: no newline at the end), so the
        next line starts on a line of its own; returns the bytes dropped (0: nothing torn)."""
        if not self.path.is_file():
            return 0
        with self.path.open("rb+") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return 0
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return 0
            keep, step = 0, 1 << 16
            position = size
            while position > 0:  # the last newline, read backwards in blocks
                start = max(0, position - step)
                fh.seek(start)
                block = fh.read(position - start)
                found = block.rfind(b"\n")
                if found >= 0:
                    keep = start + found + 1
                    break
                position = start
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        return size - keep

    def append(self, entry: dict[str, Any]) -> None:
        self.append_many([entry])

    def append_many(self, entries: list[dict[str, Any]]) -> None:
        """All of ``entries``, one line each, in one write and one ``fsync`` (a chunk's items)."""
        if not entries:
            return
        line = "".join(json.dumps({**e, "at": e.get("at") or _now()}, default=str, separators=(",", ":")) + "\n"
                       for e in entries).encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)  # at the first line: a run that journals nothing makes nothing
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)  # the user's umask decides
        try:
            written = os.write(fd, line)
            while written < len(line):  # a regular file takes it whole; be safe anyway
                written += os.write(fd, line[written:])
            os.fsync(fd)
        finally:
            os.close(fd)


@dataclass
class JournalContents:
    path: str
    runs: list[dict[str, Any]] = field(default_factory=list)
    collected: list[str] = field(default_factory=list)  # item ids, first run's order
    backends: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> device info
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # item id -> last item line
    ended: bool = False
    torn_lines: int = 0
    line_of: dict[str, int] = field(default_factory=dict)  # item id -> the line number of its last line

    def by_status(self, status: str) -> list[dict[str, Any]]:
        return [e for e in self.items.values() if e.get("status") == status]

    @property
    def missing(self) -> list[str]:
        return [i for i in self.collected if i not in self.items]


def _bad_numbers(values: Any) -> str | None:
    """Why ``values`` is not a list of measured times (None: it is)."""
    if not isinstance(values, list):
        return f"a {type(values).__name__}, not a list"
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{value!r:.40}, not a number"
        if not math.isfinite(value) or value < 0:
            return f"{value!r}, not a non-negative finite number"
    return None


def _check_item(where: Path, number: int, entry: dict[str, Any]) -> None:
    item_id = entry.get("item_id")
    if not isinstance(item_id, str) or not item_id:
        raise JournalError(f"{where}: line {number} is an item line without an item_id; the journal was edited or "
                           "corrupted (delete that line and retry)")
    fix = f"the journal was edited or corrupted: delete line {number} (a resume measures {item_id} again) and retry"
    if entry.get("status") not in ("timed", "failed", "skipped"):
        raise JournalError(f"{where}: line {number} (item {item_id}): status {entry.get('status')!r:.40} is none of "
                           f"timed/failed/skipped; {fix}")
    outcome, bench = entry.get("outcome"), entry.get("benchmark")
    if outcome is not None and not isinstance(outcome, dict):
        raise JournalError(f"{where}: line {number} (item {item_id}): its record is not an object; {fix}")
    if bench is not None and (not isinstance(bench, dict) or not isinstance(bench.get("stats", {}), dict)):
        raise JournalError(f"{where}: line {number} (item {item_id}): its benchmark is not an object; {fix}")
    fields = []
    if isinstance(outcome, dict) and "samples_s" in outcome:
        fields.append(("samples_s", outcome["samples_s"]))
    if isinstance(bench, dict) and "data" in (bench.get("stats") or {}):
        fields.append(("benchmark stats.data", bench["stats"]["data"]))
    for name, values in fields:
        why = _bad_numbers(values)
        if why:
            raise JournalError(f"{where}: line {number} (item {item_id}): {name} holds {why}; {fix}")


def not_the_item(entry: dict[str, Any], item_id: str, backend: str | None = None, nodeid: str | None = None) -> str | None:
    """Why this item line must not stand for ``item_id`` (of ``backend``, test ``nodeid``); None: it may."""
    outcome = entry.get("outcome") or {}
    named = f"{outcome.get('kind')}-{outcome.get('backend')}-{outcome.get('case_id')}"
    if entry.get("item_id") != item_id:
        return f"the line is {entry.get('item_id')!r}'s"
    if outcome and named != item_id:
        return f"its record is of {named}"
    if backend is not None and outcome and outcome.get("backend") != backend:
        return f"its record is of backend {outcome.get('backend')!r}"
    fullname = (entry.get("benchmark") or {}).get("fullname")
    for other in (entry.get("nodeid"), fullname, outcome.get("nodeid")):
        if nodeid is not None and other is not None and other != nodeid:
            return f"it was written for test {other}"
    if fullname is not None and entry.get("nodeid") is not None and fullname != entry.get("nodeid"):
        return f"its benchmark is of test {fullname}"
    return None


def _samples(entry: dict[str, Any]) -> Any:
    return ((entry.get("benchmark") or {}).get("stats") or {}).get("data", (entry.get("outcome") or {}).get("samples_s"))


def _check_copies(where: Path, number: int, entry: dict[str, Any], earlier: tuple[int, dict[str, Any]] | None) -> None:
    """Two timed copies of one item, of the same code and testbed, must agree."""
    if earlier is None or entry.get("status") != "timed" or earlier[1].get("status") != "timed":
        return
    first = earlier[1]
    if not_the_item(first, first["item_id"]) or not_the_item(entry, entry["item_id"]):
        return  # a line that is not its item's never stood for it
    if first.get("identity") == entry.get("identity") and _samples(first) != _samples(entry):
        raise JournalError(
            f"{where}: lines {earlier[0]} and {number} hold two different measurements of {entry['item_id']} with the same "
            "code and testbed: two runs wrote into this journal, and which copy is the item's cannot be told; keep the "
            "lines of one run (each run starts at a 'run' line) and retry")


def _lines(where: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(number, bytes, ends with a newline) of each line, read one at a time: a file that is no
    journal (its first line longer than a run header, any line longer than ``MAX_LINE_BYTES``)
    is refused before much of it is read."""
    with where.open("rb") as fh:
        number = 0
        while True:
            limit = FIRST_LINE_BYTES if number == 0 else MAX_LINE_BYTES
            raw = fh.readline(limit + 1)
            if not raw:
                return
            number += 1
            if len(raw) > limit:
                raise JournalError(f"{where}: line {number} is longer than {limit / 2**20:g} MiB, which no journal line is; "
                                   f"this is not a tlbench journal (pass a *{JOURNAL_SUFFIX} file)")
            yield number, raw, raw.endswith(b"\n")


def _entry(where: Path, number: int, raw: bytes, complete: bool) -> dict[str, Any] | None:
    """The line as an entry; None: a torn last line (killed while writing it)."""
    try:
        entry = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        if not complete:
            return None
        raise JournalError(f"{where}: line {number} is not JSON; this is not a tlbench journal (or it was edited)") from None
    if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
        raise JournalError(f"{where}: line {number} is not a journal entry; pass a *{JOURNAL_SUFFIX} file")
    return entry


def read_journal(path: str | Path) -> JournalContents:
    where = Path(path)
    if not where.exists():
        raise JournalError(f"{where}: no such journal (it is written beside --benchmark-json as *{JOURNAL_SUFFIX})")
    if where.is_dir():
        raise JournalError(f"{where}: is a directory, not a journal file")
    contents = JournalContents(path=str(where))
    timed: dict[str, tuple[int, dict[str, Any]]] = {}  # item id -> its last timed line
    collected: set[str] = set()
    for number, raw, complete in _lines(where):
        if not raw.strip():
            continue
        entry = _entry(where, number, raw, complete)
        if entry is None:
            contents.torn_lines += 1
            continue
        kind = entry["type"]
        if not contents.runs and kind != "run":
            raise JournalError(f"{where}: line {number} comes before any run header line; this is not a tlbench journal")
        if kind == "run":
            if entry.get("journal_version") != JOURNAL_VERSION:
                raise JournalError(
                    f"{where}: journal version {entry.get('journal_version')!r}, this tlbench reads {JOURNAL_VERSION}; "
                    "use the tlbench that wrote it"
                )
            contents.runs.append(entry)
        elif kind == "collected":
            ids = entry.get("item_ids", [])
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise JournalError(f"{where}: line {number}: its item_ids are not a list of item ids; the journal was edited")
            contents.collected += [i for i in dict.fromkeys(ids) if i not in collected]
            collected.update(ids)
        elif kind == "backend":
            if not isinstance(entry.get("name"), str) or not isinstance(entry.get("device_info") or {}, dict):
                raise JournalError(f"{where}: line {number}: a backend line without a name or with device info that is not "
                                   "an object; the journal was edited")
            contents.backends[entry["name"]] = entry.get("device_info") or {}
        elif kind == "item":
            _check_item(where, number, entry)
            _check_copies(where, number, entry, timed.get(entry["item_id"]))
            if entry.get("status") == "timed":
                timed[entry["item_id"]] = (number, entry)
            contents.items[entry["item_id"]] = entry
            contents.line_of[entry["item_id"]] = number
        elif kind == "end":
            contents.ended = True
    if not contents.runs:
        raise JournalError(f"{where}: no run header line; this is not a tlbench journal")
    return contents


def partial_note(contents: JournalContents) -> dict[str, Any]:
    return {"journal": contents.path, "run_ended": contents.ended,
            "items_in_journal": len(contents.items), "items_collected": len(contents.collected),
            "missing": contents.missing}


def recover_document(contents: JournalContents) -> dict[str, Any]:
    """A pytest-benchmark document of everything the journal holds (see the module contract);
    ``JournalError`` where a line is not its item's."""
    for item_id, entry in contents.items.items():
        why = not_the_item(entry, item_id)
        if why:
            raise JournalError(f"{contents.path}: line {contents.line_of.get(item_id, '?')} stands for {item_id} but {why}; "
                               "the journal was edited or mixes runs: delete that line and recover again")
    first = contents.runs[0]
    machine_info = dict(first.get("machine_info") or {})
    if contents.backends:
        machine_info[EXTRA_KEY] = {"schema_version": SCHEMA_VERSION, "backends": dict(contents.backends)}
        machine_info["accelerator"] = "; ".join(f"{n}: {i.get('accelerator')}" for n, i in contents.backends.items())
    timed = [e for e in contents.items.values() if e.get("status") == "timed" and e.get("benchmark")]
    tlbench = dict(first.get(EXTRA_KEY) or {})
    tlbench.update({
        "schema_version": SCHEMA_VERSION,
        "failed": [e["outcome"] for e in contents.by_status("failed")],
        "skipped": [e["outcome"] for e in contents.by_status("skipped")],
        "partial": partial_note(contents) if (not contents.ended or contents.missing) else None,
        "recovered_from": contents.path,
    })
    return {
        "machine_info": machine_info,
        "commit_info": first.get("commit_info") or {},
        "benchmarks": sorted((e["benchmark"] for e in timed), key=lambda b: b.get("fullname", "")),
        "datetime": first.get("at") or _now(),
        "version": first.get("pytest_benchmark_version") or "unknown",
        EXTRA_KEY: tlbench,
    }
