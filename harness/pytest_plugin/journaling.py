"""pytest glue of the run journal: write it, resume from one, write the final JSON atomically.

Contract (``JournalingPlugin``, registered by harness/plugin.py when a journal applies):
- the journal is ``--tlbench-journal PATH``, else ``<--benchmark-json stem>.journal.jsonl`` beside the result
  file; with neither, nothing is journaled (``--tlbench-resume`` then appends to the journal it resumes);
- each finished tlbench item is appended as it finishes (harness/results/files/journal.py; a device-phase chunk's
  items inside ``batch()``, in one write), after the process's ``run`` and ``collected`` lines, written with
  its first line (the run line asks pytest-benchmark for machine and commit info, a few subprocesses, which
  then overlap the device timing), with its identity: a hash of the harness, backends and suite source, its
  backend's testbed (target, accelerator, tilelang, driver, vendor library) and the measure settings (policy,
  compile rounds, input seed, every backend option);
- ``--tlbench-resume JOURNAL``: an item the journal holds as timed with the same identity, in a line whose
  record and benchmark are that item's (results/files/journal.py::not_the_item), is not measured again; its samples
  and record go into this run's JSON (its record says ``resumed_from``).  Failed, skipped and mismatched items
  are measured.  A journal with bad samples (NaN, a string) or two disagreeing copies of an item is a usage
  error (one line; pytest's exit 4).  Without ``--tlbench-seed`` the journal's input seed is reused;
- the ``--benchmark-json`` file is written atomically (temp file + rename);
- a process that measured no tlbench item writes no journal (not even ``end``) and leaves
  pytest-benchmark's own ``--benchmark-json`` write alone (``ran_items``).
Under pytest-xdist every worker appends to the controller's journal; the controller writes ``end``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from ..core.record import EXTRA_KEY, SCHEMA_VERSION, BenchItem
from .bench_adapter import result_json_path, route_json_write
from .xdist_support import to_plain, worker_index
from ..results.files.journal import (JOURNAL_VERSION, Journal, JournalError, atomic_write_text, journal_path_for,
                                             not_the_item, read_journal)
from ..results.files.store import testbed_of

SOURCE_DIRS = ("harness", "backends")


def add_options(group) -> None:
    group.addoption("--tlbench-journal", default=None, metavar="PATH",
                    help="journal of finished items (default: <--benchmark-json stem>.journal.jsonl beside it)")
    group.addoption("--tlbench-resume", default=None, metavar="JOURNAL",
                    help="skip items this journal holds as measured with the same code and testbed; measure the rest")


def resume_seed(config) -> int | None:
    """The input seed of the journal being resumed (so resumed and new items share inputs)."""
    path = config.getoption("--tlbench-resume")
    if not path:
        return None
    try:
        contents = read_journal(path)
    except JournalError as exc:
        raise pytest.UsageError(f"--tlbench-resume: {exc}") from None
    return (contents.runs[0].get(EXTRA_KEY) or {}).get("input_seed")


def journal_path(config) -> Path | None:
    explicit = config.getoption("--tlbench-journal")
    if explicit:
        return Path(explicit)
    result = result_json_path(config)
    if result is not None:
        return journal_path_for(result)
    resume = config.getoption("--tlbench-resume")
    return Path(resume) if resume else None


def _tree_hash(root: Path, extra: list[Path]) -> str:
    digest = hashlib.sha256()
    files = sorted(p for d in SOURCE_DIRS if (root / d).is_dir() for p in (root / d).rglob("*.py"))
    for path in [*files, *extra]:
        if path.is_file():
            digest.update(str(path.relative_to(root) if path.is_relative_to(root) else path).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class JournalingPlugin:
    def __init__(self, config, run_settings: Callable[[], dict[str, Any]], describe: Callable[..., dict[str, Any]],
                 ran_items: Callable[[], bool] = lambda: True) -> None:
        self.config = config
        self.ran_items = ran_items  # this process measured (or reused) a tlbench item
        self.run_settings = run_settings  # backend choice, scope, kinds, seed, policy ...
        self.describe = describe  # (nodeid, BenchItem, Outcome) -> the outcome record
        self.path = journal_path(config)
        self.journal = Journal(self.path) if self.path is not None else None
        self.repaired = 0  # bytes of a torn last line dropped before this run appended
        if self.journal is not None and worker_index() is None:
            self.repaired = self.journal.repair_torn_tail()
            if self.repaired:
                print(f"[tlbench] journal {self.path}: its last line was torn (a run killed while writing it); "
                      f"dropped those {self.repaired} bytes before appending", file=sys.stderr)
        resume = config.getoption("--tlbench-resume")
        try:
            self.resume = read_journal(resume) if resume else None
        except JournalError as exc:
            raise pytest.UsageError(f"--tlbench-resume: {exc}") from None
        self.same_file = bool(resume and self.path and Path(resume).resolve() == self.path.resolve())
        self.reused: list[str] = []
        self.remeasured: dict[str, str] = {}  # item id -> why the journal's entry was not reused
        self._backends_written: set[str] = set()
        self._identity_cache: dict[tuple[str, str], dict[str, Any]] = {}
        self._root = Path(__file__).resolve().parents[2]
        self._journaled: set[str] = set()
        self._due: list[dict[str, Any]] | None = None  # the header lines, written before this process's first line
        self._batch: list[dict[str, Any]] | None = None  # lines held for one write (``batch``)
        self._wrote = False  # this process appended a line
        self._size_at_start = _size(self.path)  # the xdist controller: did a worker append?
        if self.path is not None and is_xdist_controller(config):
            config.option.tlbench_journal = str(self.path)  # shipped to the workers

    # -- identity --------------------------------------------------------------------------

    def identity(self, nodeid: str, backend_name: str, backend: Any) -> dict[str, Any]:
        suite_file = nodeid.split("::", 1)[0]
        key = (suite_file, backend_name)
        if key not in self._identity_cache:
            suite = Path(self.config.rootpath) / suite_file
            document = {"machine_info": {EXTRA_KEY: {"backends": {backend_name: backend.device_info()}}}}
            settings = self.run_settings()
            self._identity_cache[key] = {
                "code": _tree_hash(self._root, [suite]),
                "testbed": asdict(testbed_of(document, backend_name)),
                "settings": {k: settings[k] for k in ("policy", "compile_rounds", "input_seed", "backend_options") if k in settings},
            }
        return self._identity_cache[key]

    # -- resume ----------------------------------------------------------------------------

    def will_reuse(self, item: BenchItem) -> bool:
        """Cheap pre-check (no identity): the journal holds this item as timed."""
        entry = self.resume.items.get(item.item_id) if self.resume else None
        return bool(entry and entry.get("status") == "timed" and entry.get("benchmark"))

    def reused_record(self, nodeid: str, item: BenchItem, backend: Any) -> dict[str, Any] | None:
        """The journaled record of this item when it may stand in for a new measurement."""
        if not self.will_reuse(item):
            return None
        entry = self.resume.items[item.item_id]  # type: ignore[union-attr]
        other = not_the_item(entry, item.item_id, item.backend, nodeid)
        if other:
            self.remeasured[item.item_id] = f"the journal's line is not this item's ({other})"
            return None
        mine = self.identity(nodeid, item.backend, backend)
        theirs = entry.get("identity") or {}
        changed = [k for k in ("code", "testbed", "settings") if theirs.get(k) != mine[k]]
        if changed:
            self.remeasured[item.item_id] = f"{', '.join(changed)} changed"
            return None
        self.reused.append(item.item_id)
        return {**entry["outcome"], "resumed_from": self.resume.path, "measured_at": entry.get("at")}  # type: ignore[union-attr]

    # -- writing ---------------------------------------------------------------------------

    def _header(self) -> dict[str, Any]:
        import pytest_benchmark

        session = getattr(self.config, "_benchmarksession", None)
        machine = session.config.hook.pytest_benchmark_generate_machine_info(config=self.config) if session else {}
        commit = self.config.hook.pytest_benchmark_generate_commit_info(config=self.config) if session else {}
        if session:  # as pytest-benchmark completes it for the results file (TLBENCH_COMMIT, source digest)
            self.config.hook.pytest_benchmark_update_commit_info(config=self.config, commit_info=commit)
        return {
            "type": "run",
            "journal_version": JOURNAL_VERSION,
            "pid": os.getpid(),
            "xdist_worker": os.environ.get("PYTEST_XDIST_WORKER"),
            "argv": sys.argv,
            "resumed_from": self.resume.path if self.resume else None,
            "pytest_benchmark_version": pytest_benchmark.__version__,
            "machine_info": machine,
            "commit_info": commit,
            EXTRA_KEY: {"schema_version": SCHEMA_VERSION, **self.run_settings()},
        }

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session) -> None:
        route_json_write(self.config, lambda path, text: atomic_write_text(path, text), applies=self.ran_items)
        if self.journal is not None and not is_xdist_controller(self.config):
            self._due = []  # the run line is built with this process's first line: off the start-up path

    def pytest_collection_finish(self, session) -> None:
        if self.journal is None or is_xdist_controller(self.config) or self._due is None:
            return
        ids = [i.callspec.params["tlbench_item"] for i in session.items if "tlbench_item" in getattr(getattr(i, "callspec", None), "params", {})]
        self._due.append({"type": "collected", "item_ids": ids})

    def _write(self, entry: dict[str, Any]) -> None:
        """Append ``entry``, after the run and collected lines when it is this process's first."""
        assert self.journal is not None
        lines = [entry]
        if self._due is not None:
            lines = [self._header(), *self._due, entry]
            self._due = None
        self._wrote = True
        if self._batch is not None:
            self._batch.extend(lines)
        else:
            self.journal.append_many(lines)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Lines ``record``ed inside go to disk together at the end, in one write and one fsync."""
        if self.journal is None or self._batch is not None:
            yield
            return
        self._batch = []
        try:
            yield
        finally:
            lines, self._batch = self._batch, None
            self.journal.append_many(lines)

    def record(self, nodeid: str, item: BenchItem, outcome: Any, benchmark: Any, backend: Any | None) -> None:
        """Append one finished item (called right after the item's test call)."""
        if self.journal is None or nodeid in self._journaled:
            return
        self._journaled.add(nodeid)
        rec = self.describe(nodeid, item, outcome)
        if rec.get("resumed_from") and self.same_file:
            return  # already in this very journal
        if backend is not None and item.backend not in self._backends_written:
            self._write({"type": "backend", "name": item.backend, "device_info": backend.device_info()})
            self._backends_written.add(item.backend)
        stats = getattr(benchmark, "stats", None) if benchmark is not None else None
        entry = {
            "type": "item",
            "item_id": item.item_id,
            "nodeid": nodeid,
            "status": outcome.status,
            "identity": self.identity(nodeid, item.backend, backend) if backend is not None else None,
            "outcome": rec,
            "benchmark": to_plain(stats.as_dict(include_data=True)) if outcome.status == "timed" and stats else None,
        }
        self._write(entry)

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if self.journal is None or worker_index() is not None:
            return
        workers_wrote = is_xdist_controller(self.config) and _size(self.path) != self._size_at_start
        if self._wrote or workers_wrote or self.resume is not None:
            self._write({"type": "end", "exitstatus": int(exitstatus), "reused": len(self.reused)})

    def json_note(self) -> dict[str, Any]:
        note: dict[str, Any] = {"journal": str(self.path) if self.path else None}
        if self.resume is not None:
            note["resumed_from"] = self.resume.path
            note["reused_items"] = len(self.reused)
            note["remeasured"] = self.remeasured
        return note

    def summary_lines(self) -> list[str]:
        lines = []
        if self.path is not None:
            lines.append(f"[tlbench] journal: {self.path}")
        if self.repaired:
            lines.append(f"[tlbench] journal: a torn last line ({self.repaired} bytes) was dropped before this run appended")
        if self.resume is not None:
            lines.append(
                f"[tlbench] resumed from {self.resume.path}: {len(self.reused)} items reused, "
                f"{len(self.remeasured)} re-measured (changed code/testbed/settings)"
            )
        return lines


def _size(path: Path | None) -> int | None:
    try:
        return path.stat().st_size if path is not None else None
    except OSError:
        return None


def is_xdist_controller(config) -> bool:
    return worker_index() is None and config.getoption("dist", "no") not in ("no", None)

