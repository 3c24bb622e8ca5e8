"""The run journal: every finished item on disk at once, and a results file rebuilt from it.

Contract:
- ``Journal(path).append(entry)`` writes ``entry`` as one JSON line with a single
  ``os.write`` on an ``O_APPEND`` descriptor and ``fsync``s before returning, so a run killed
  at any moment (``kill -9``, a CI timeout) keeps every line it finished; several processes
  (pytest-xdist workers) may append to one journal.  ``repair_torn_tail()`` drops a torn last
  line before a run appends to an existing journal (the plugin does, and says so).  ``append_many(entries)`` writes several
  lines the same way, with one ``write`` and one ``fsync`` (a device-phase chunk's items).  A torn last line is ignored on reading.
- Line types (key ``type``): ``run`` (once per process: pytest-benchmark's machine and
  commit info, the tlbench run settings), ``collected`` (the item ids the run will
  measure), ``backend`` (a backend's device info, once per process), ``item`` (one
  finished item: ``item_id``, ``nodeid``, ``status`` timed/failed/skipped, ``identity`` -
  the code, testbed and settings it was measured with -, ``outcome`` - the record that went
  into ``extra_info`` or under ``tlbench.failed``/``skipped`` - and, when timed,
  ``benchmark``, pytest-benchmark's own entry), ``end`` (the run finished; its exit status).
- ``read_journal(path)`` returns ``JournalContents`` (the last line per item id wins) or
  raises ``JournalError`` with one line saying what is wrong and what to do.
- ``recover_document(contents)`` is a pytest-benchmark JSON document of the journal's items
  (``pytest-benchmark compare`` and ``tlbench compare`` read it); its ``tlbench.partial``
  says whether the run ended and which collected items are missing.
- ``atomic_write_text(path, text)`` (harness/core/atomic_file.py, re-exported here) writes a
  temp file beside ``path`` with the user's umask, fsyncs it, renames it over ``path`` and
  fsyncs the directory: a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tlbench.harness.core.atomic_file import atomic_write_text  # noqa: F401  (re-exported: the journal's writers use it)
from tlbench.harness.core.record import EXTRA_KEY, SCHEMA_VERSION

JOURNAL_VERSION = 1
JOURNAL_SUFFIX = ".journal.jsonl"


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

    def by_status(self, status: str) -> list[dict[str, Any]]:
        return [e for e in self.items.values() if e.get("status") == status]

    @property
    def missing(self) -> list[str]:
        return [i for i in self.collected if i not in self.items]


def read_journal(path: str | Path) -> JournalContents:
    where = Path(path)
    if not where.exists():
        raise JournalError(f"{where}: no such journal (it is written beside --benchmark-json as *{JOURNAL_SUFFIX})")
    if where.is_dir():
        raise JournalError(f"{where}: is a directory, not a journal file")
    contents = JournalContents(path=str(where))
    lines = where.read_bytes().splitlines()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            if number == len(lines):  # killed while writing its last line
                contents.torn_lines += 1
                continue
            raise JournalError(f"{where}: line {number} is not JSON; this is not a tlbench journal (or it was edited)") from None
        if not isinstance(entry, dict) or "type" not in entry:
            raise JournalError(f"{where}: line {number} is not a journal entry; pass a *{JOURNAL_SUFFIX} file")
        kind = entry["type"]
        if kind == "run":
            if entry.get("journal_version") != JOURNAL_VERSION:
                raise JournalError(
                    f"{where}: journal version {entry.get('journal_version')!r}, this tlbench reads {JOURNAL_VERSION}; "
                    "use the tlbench that wrote it"
                )
            contents.runs.append(entry)
        elif kind == "collected":
            contents.collected += [i for i in entry.get("item_ids", []) if i not in contents.collected]
        elif kind == "backend":
            contents.backends[entry["name"]] = entry.get("device_info") or {}
        elif kind == "item":
            contents.items[entry["item_id"]] = entry
        elif kind == "end":
            contents.ended = True
    if not contents.runs:
        raise JournalError(f"{where}: no run header line; this is not a tlbench journal")
    return contents


def partial_note(contents: JournalContents) -> dict[str, Any]:
    return {
        "journal": contents.path,
        "run_ended": contents.ended,
        "items_in_journal": len(contents.items),
        "items_collected": len(contents.collected),
        "missing": contents.missing,
    }


def recover_document(contents: JournalContents) -> dict[str, Any]:
    """A pytest-benchmark document of everything the journal holds (see the module contract)."""
    first = contents.runs[0]
    machine_info = dict(first.get("machine_info") or {})
    if contents.backends:
        machine_info[EXTRA_KEY] = {"schema_version": SCHEMA_VERSION, "backends": dict(contents.backends)}
        machine_info["accelerator"] = "; ".join(f"{n}: {i.get('accelerator')}" for n, i in contents.backends.items())
    timed = [e for e in contents.items.values() if e.get("status") == "timed" and e.get("benchmark")]
    tlbench = dict(first.get(EXTRA_KEY) or {})
    tlbench.update(
        {
            "schema_version": SCHEMA_VERSION,
            "failed": [e["outcome"] for e in contents.by_status("failed")],
            "skipped": [e["outcome"] for e in contents.by_status("skipped")],
            "partial": partial_note(contents) if (not contents.ended or contents.missing) else None,
            "recovered_from": contents.path,
        }
    )
    return {
        "machine_info": machine_info,
        "commit_info": first.get("commit_info") or {},
        "benchmarks": sorted((e["benchmark"] for e in timed), key=lambda b: b.get("fullname", "")),
        "datetime": first.get("at") or _now(),
        "version": first.get("pytest_benchmark_version") or "unknown",
        EXTRA_KEY: tlbench,
    }
