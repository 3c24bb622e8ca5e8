"""pytest glue of the run journal: write it, resume from one, and the results file's safety.

Contract (``JournalingPlugin``): each finished item is appended to ``--tlbench-journal PATH``
(else ``<--benchmark-json stem>.journal.jsonl``) with its ``Identity``; ``--tlbench-resume
JOURNAL`` reuses an item journaled as timed with the same identity (a bad journal is a usage
error).  ``set_aside_previous``, ``partial_note`` (the JSON's ``tlbench.partial``, None for a whole
run) and ``write_if_nothing_timed`` keep the results file honest; under xdist the controller
writes ``end``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import pytest

from ..core.record import EXTRA_KEY, SCHEMA_VERSION, BenchItem, plain_data
from ..results.files.journal import (JOURNAL_VERSION, Journal, JournalError, atomic_write_text, journal_path_for,
                                     not_the_item, read_journal)
from ..results.files.store import testbed_of
from .bench_adapter import result_json_path, route_json_write, write_nothing_timed_json
from .manners import item_id_of
from .xdist_support import WORKER_ENV, is_controller, worker_index

SOURCE_DIRS = ("harness", "backends")


def add_options(group) -> None:
    group.addoption("--tlbench-journal", default=None, metavar="PATH",
                    help="journal of finished items (default: <--benchmark-json stem>.journal.jsonl beside it)")
    group.addoption("--tlbench-resume", default=None, metavar="JOURNAL",
                    help="skip items this journal holds as measured with the same code and testbed; measure the rest")


def _resumed(config):
    """The journal ``--tlbench-resume`` names, read; None without the option."""
    path = config.getoption("--tlbench-resume")
    try:
        return read_journal(path) if path else None
    except JournalError as exc:
        raise pytest.UsageError(f"--tlbench-resume: {exc}") from None


def resume_seed(config) -> int | None:
    """The input seed of the journal being resumed (resumed and new items share inputs)."""
    contents = _resumed(config)
    return (contents.runs[0].get(EXTRA_KEY) or {}).get("input_seed") if contents is not None else None


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


@dataclass(frozen=True)
class Identity:
    """What a journaled measurement stands for; a resumed item must match it."""

    code: str  # hash of harness, backends and the suite file
    testbed: dict
    settings: dict  # policy, compile rounds, input seed, backend options


class JournalingPlugin:
    def __init__(self, config, run_settings: Callable[[], Mapping[str, object]], describe: Callable[..., dict],
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
        self.resume = _resumed(config)
        self.same_file = bool(resume and self.path and Path(resume).resolve() == self.path.resolve())
        self.reused: list[str] = []
        self.remeasured: dict[str, str] = {}  # item id -> why the journal's entry was not reused
        self._backends_written: set[str] = set()
        self._identity_cache: dict[tuple[str, str], Identity] = {}
        self._root = Path(__file__).resolve().parents[2]
        self._journaled: set[str] = set()
        self._due: list[Mapping[str, object]] | None = None  # header lines, written with this process's first
        self._batch: list[Mapping[str, object]] | None = None  # lines held for one write (``batch``)
        self._wrote = False  # this process appended a line
        self._size_at_start = _size(self.path)  # the xdist controller: did a worker append?
        if self.path is not None and is_controller(config):
            config.option.tlbench_journal = str(self.path)  # shipped to the workers

    def identity(self, nodeid: str, backend_name: str, backend: Any) -> Identity:
        suite_file = nodeid.split("::", 1)[0]
        key = (suite_file, backend_name)
        if key not in self._identity_cache:
            suite = Path(self.config.rootpath) / suite_file
            document = {"machine_info": {EXTRA_KEY: {"backends": {backend_name: backend.device_info()}}}}
            settings = self.run_settings()
            self._identity_cache[key] = Identity(
                _tree_hash(self._root, [suite]), asdict(testbed_of(document, backend_name)),
                {k: settings[k] for k in ("policy", "compile_rounds", "input_seed", "backend_options") if k in settings})
        return self._identity_cache[key]

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
        changed = [k for k, value in asdict(mine).items() if theirs.get(k) != value]
        if changed:
            self.remeasured[item.item_id] = f"{', '.join(changed)} changed"
            return None
        self.reused.append(item.item_id)
        return {**entry["outcome"], "resumed_from": self.resume.path, "measured_at": entry.get("at")}  # type: ignore[union-attr]

    def _header(self) -> Mapping[str, object]:
        import pytest_benchmark

        session = getattr(self.config, "_benchmarksession", None)
        machine = session.config.hook.pytest_benchmark_generate_machine_info(config=self.config) if session else {}
        commit = self.config.hook.pytest_benchmark_generate_commit_info(config=self.config) if session else {}
        if session:  # as pytest-benchmark completes it for the results file (TLBENCH_COMMIT, source digest)
            self.config.hook.pytest_benchmark_update_commit_info(config=self.config, commit_info=commit)
        return {"type": "run", "journal_version": JOURNAL_VERSION, "pid": os.getpid(),
                "xdist_worker": os.environ.get(WORKER_ENV), "argv": sys.argv,
                "resumed_from": self.resume.path if self.resume else None,
                "pytest_benchmark_version": pytest_benchmark.__version__, "machine_info": machine, "commit_info": commit,
                EXTRA_KEY: {"schema_version": SCHEMA_VERSION, **self.run_settings()}}

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session) -> None:
        route_json_write(self.config, atomic_write_text, applies=self.ran_items)
        if self.journal is not None and not is_controller(self.config):
            self._due = []  # the run line is built with this process's first line: off the start-up path

    def pytest_collection_finish(self, session) -> None:
        if self.journal is not None and not is_controller(self.config) and self._due is not None:
            ids = [i for i in map(item_id_of, session.items) if i is not None]
            self._due.append({"type": "collected", "item_ids": ids})

    def _write(self, entry: Mapping[str, object]) -> None:
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
        self._write({
            "type": "item", "item_id": item.item_id, "nodeid": nodeid, "status": outcome.status,
            "identity": asdict(self.identity(nodeid, item.backend, backend)) if backend is not None else None,
            "outcome": rec,
            "benchmark": plain_data(stats.as_dict(include_data=True)) if outcome.status == "timed" and stats else None,
        })

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if self.journal is None or worker_index() is not None:
            return
        workers_wrote = is_controller(self.config) and _size(self.path) != self._size_at_start
        if self._wrote or workers_wrote or self.resume is not None:
            self._write({"type": "end", "exitstatus": int(exitstatus), "reused": len(self.reused)})

    def json_note(self) -> dict[str, object]:
        """The journal's keys of the JSON's ``tlbench`` object."""
        note: dict[str, object] = {"journal": str(self.path) if self.path else None}
        if self.resume is not None:
            note.update(resumed_from=self.resume.path, reused_items=len(self.reused), remeasured=self.remeasured)
        return note

    def summary_lines(self) -> list[str]:
        lines = [f"[tlbench] journal: {self.path}"] if self.path is not None else []
        if self.repaired:
            lines.append(f"[tlbench] journal: a torn last line ({self.repaired} bytes) was dropped before this run appended")
        if self.resume is not None:
            lines.append(f"[tlbench] resumed from {self.resume.path}: {len(self.reused)} items reused, "
                         f"{len(self.remeasured)} re-measured (changed code/testbed/settings)")
        return lines


def _size(path: Path | None) -> int | None:
    try:
        return path.stat().st_size if path is not None else None
    except OSError:
        return None


@dataclass(frozen=True)
class PartialNote:
    reason: str
    run_ended: bool
    items_collected: int
    items_in_file: int
    missing: list[str]
    journal: str | None  # the journal ``--tlbench-resume`` finishes the run from


def set_aside_previous(config: Any) -> str | None:
    path = result_json_path(config)
    if path is None or not path.is_file() or path.stat().st_size == 0:
        return None
    aside = path.with_name(path.name + ".previous")
    os.replace(path, aside)
    return f"[tlbench] {path} held an earlier run: moved to {aside} (this run writes {path} when it ends)"


def partial_note(state: Any, exitstatus: int | None) -> PartialNote | None:
    collected = list(state.items.collected_ids)
    done = {item.item_id for _, item, _ in state.records.outcomes}
    missing = [i for i in collected if i not in done]
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        reason = "interrupted"
    elif missing:
        reason = f"{len(missing)} collected items have no outcome (the session stopped early)"
    else:
        return None
    journal = state.records.journal.path if state.records.journal is not None else None
    return PartialNote(reason, exitstatus != pytest.ExitCode.INTERRUPTED, len(collected), len(done), missing,
                       str(journal) if journal else None)


def write_if_nothing_timed(config: Any, state: Any) -> Path | None:
    if not state.records.outcomes or any(o.status == "timed" for _, _, o in state.records.outcomes):
        return None
    return write_nothing_timed_json(config, atomic_write_text)


class ExitStatusNote:
    def __init__(self, state: Any) -> None:
        self.state = state

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.state.records.exitstatus = int(exitstatus)
        yield
