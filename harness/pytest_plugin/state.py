"""The per-run state of the pytest plugin, kept in ``config.stash[STATE]`` (no module globals).

Contract: ``TlbenchState`` holds the registry and one part per concern: ``options`` (the command
line), ``items`` (collection and preflight), ``records`` (outcomes, journal, files written),
``devices`` (compile pool, device workers, the two phases), ``progress`` (progress lines).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

from ..core.cases import Case, MeasurePolicy
from ..core.record import BenchItem
from ..core.registry import BackendRegistry
from ..core.space import SpaceDiagnostics
from ..measure.compile_phase import CompilePhase
from ..measure.compile_pool import CompilePool
from ..measure.interrupt import InterruptWatch
from ..measure.device_phase import DevicePhase
from ..measure.runner import Outcome
from .inert_cache import InertKeyCache
from .isolation import Workers
from .journaling import JournalingPlugin
from .manners import item_id_of
from .progress import LoopLine

KINDS = ("compile", "device")

@dataclass(frozen=True)
class SweepNote:
    """A collected sweep, as the JSON's ``tlbench.sweeps`` holds it."""

    description: str
    items: int
    diagnostics: list[SpaceDiagnostics]  # asdict() makes them the JSON's dicts


@dataclass
class RunOptions:
    backend_choice: str
    kinds: tuple[str, ...]
    scope: str
    policy: MeasurePolicy
    compile_rounds: int
    seed: int
    selected: list[str] | None = None  # the backends chosen (TlbenchState.backends)
    autotune_path: str | None = None
    spread_devices: int = 1  # devices this process spreads device items over (--tlbench-devices, no xdist)
    test_only: tuple[str, ...] = ()  # test-only settings in effect (xdist_support.test_only_settings)
    calibrated: Any = None  # --tlbench-profile's DeviceProfile (pytest_plugin/calibrated.py), or None
    search_problem: Any = None  # --tlbench-search=model: harness/search/live.py ProblemSearch, or None
    prefetch_lock_path: str = ""


@dataclass
class RunItems:
    items_by_id: dict[str, BenchItem] = field(default_factory=dict)
    sweeps: dict[str, SweepNote] = field(default_factory=dict)
    diagnostics: list[SpaceDiagnostics] = field(default_factory=list)
    collected_ids: list[str] = field(default_factory=list)  # tlbench items left after deselection
    device_items: list[BenchItem] = field(default_factory=list)
    phase_items: list[BenchItem] = field(default_factory=list)  # selected device items, final order
    compile_items: list[BenchItem] = field(default_factory=list)  # selected compile items, final order
    phase_nodes: dict[str, pytest.Item] = field(default_factory=dict)  # item id -> its pytest item (journaled at its chunk's end)
    xdist_groups: dict[str, int] | None = None  # item id -> cost group, in an xdist worker of the group scheduler
    xdist_group_known: bool = False  # phase_items / device_items narrowed to this worker's group
    inert_cache: InertKeyCache | None = None  # the inert-key probe's answers on disk (None: not cached)
    preflight_failed: dict[str, str] = field(default_factory=dict)  # item id -> the preflight line it fails with
    preflight_tracebacks: dict[str, str] = field(default_factory=dict)  # item id -> the traceback behind that line, if any
    preflight_lines: list[str] = field(default_factory=list)  # every preflight finding and note, once, in order
    preflight_sized: dict[str, int] = field(default_factory=dict)  # "problem id (backend)" checked at its size -> device bytes

    def take_collected(self, items: list[Any]) -> None:
        """Sort the items left after every deselection into the run's lists; one that failed its
        preflight goes into no phase."""
        for item in items:
            bench = self.items_by_id.get(item_id_of(item))
            if not isinstance(bench, BenchItem):
                continue
            self.collected_ids.append(bench.item_id)
            if bench.item_id in self.preflight_failed:
                continue
            if bench.kind == "compile":
                self.compile_items.append(bench)
            elif bench.kind == "device":
                self.phase_items.append(bench)
                self.phase_nodes.setdefault(bench.item_id, item)
                if isinstance(bench.case, Case):
                    self.device_items.append(bench)


@dataclass
class RunRecords:
    outcomes: list[tuple[str, BenchItem, Outcome]] = field(default_factory=list)
    exitstatus: int | None = None  # the session's, once it finishes (a partial run is marked so)
    file_notes: list[str] = field(default_factory=list)  # what was done to the results file
    autotune_written: list[tuple[str, str, str, float | None]] = field(default_factory=list)
    machine_shipped: set[str] = field(default_factory=set)
    journal: JournalingPlugin | None = None
    setup_s: dict[str, float] = field(default_factory=dict)  # per backend: the untimed first compile
    setup_parts: dict[str, dict] = field(default_factory=dict)  # per backend: where it went (setup_compile.setup_account)
    startup_s: float | None = None  # the process's start to the end of collection (interpreter, imports, workers, collection)


@dataclass
class DeviceWork:
    pool: CompilePool
    workers: Workers | None = None
    workers_started: bool = False  # the workers were started at the first tlbench suite collected
    prefetched: set[str] = field(default_factory=set)  # backends whose device cases were sent to compile ahead
    device_phase: DevicePhase = field(default_factory=DevicePhase)
    compile_phase: CompilePhase = field(default_factory=CompilePhase)
    overlap: Any = None  # measure.overlap.Overlap: compile work beside device timing (None: not decided here)
    overlap_started: bool = False
    interrupt: InterruptWatch = field(default_factory=InterruptWatch)  # armed at configure: a Ctrl-C is seen here


@dataclass
class Reporting:
    board: Any = None  # progress.ProgressBoard: every progress line of the run (writes nothing in an xdist worker)
    scope_counts: Any = None  # scope_note.ScopeCounts: what the quick scope left for the full one
    loop_lines: dict[str, LoopLine] = field(default_factory=dict)  # backend -> progress.LoopLine of its device phase


@dataclass
class TlbenchState:
    registry: BackendRegistry
    options: RunOptions
    devices: DeviceWork
    items: RunItems = field(default_factory=RunItems)
    records: RunRecords = field(default_factory=RunRecords)
    progress: Reporting = field(default_factory=Reporting)

    def settings(self) -> dict[str, Any]:
        """What a measurement depends on besides code and testbed (journaled with each item)."""
        o = self.options
        return {
            "backend_choice": o.backend_choice, "scope": o.scope, "kinds": list(o.kinds),
            # as JSON holds it (tuples as lists): a journal's stored settings compare equal on resume
            "input_seed": o.seed, "compile_rounds": o.compile_rounds, "policy": json.loads(json.dumps(asdict(o.policy))),
            "compile_jobs": self.devices.compile_phase.jobs, "test_only": list(o.test_only),
            "backend_options": dict(self.registry.options.values),  # a timer, an L2 flush mode ...
        }

    def loop_line(self, backend: str) -> LoopLine | None:
        """The device phase's progress of ``backend`` (its own line: backends measure side by side)."""
        board, lines = self.progress.board, self.progress.loop_lines
        if board is None:
            return None
        if backend not in lines:
            line = board.phase(f"device {backend}", f"device timing {backend} (items prepared + batches)", "")
            lines[backend] = LoopLine(line, lambda: sum(1 for i in self.items.phase_items if i.backend == backend))
        return lines[backend]

    def to_measure(self, items: list[BenchItem]) -> list[BenchItem]:
        """``items`` less those an interrupted run's journal will hand back (``--tlbench-resume``)."""
        journal = self.records.journal
        return [i for i in items if not (journal and journal.will_reuse(i))]

    def backends(self) -> list[str]:
        if self.options.selected is None:
            self.options.selected = self.registry.select(self.options.backend_choice)
        return self.options.selected


STATE = pytest.StashKey[TlbenchState]()
