"""``--tlbench-shard=I/N``: this process runs shard I of a run split over N machines.

Contract: ``register(config)`` parses it (a bad value, or ``-n``, is a usage error) and registers a
``ShardPlugin`` that keeps this shard's items; ``split(entries, count)`` deals them longest first
onto the least-loaded shard, a vendor item to every shard holding its problem.  The JSON's
``tlbench.shard`` names the shard; records gain ``shard``, ``host`` and ``device``.
"""

from __future__ import annotations

import hashlib
import json
import socket
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from ..core.cases import VendorCase
from ..core.record import EXTRA_KEY, SCHEMA_VERSION
from ..core.shard import ShardSpec, run_digest
from ..measure.device_pieces import expected_cost
from ..results.files.store import ResultsError, load_results
from ..results.nightly.night_costs import item_costs
from .bench_adapter import result_json_path, session_timed_anything, write_json
from .gpu_split import balance
from .manners import item_id_of
from .state import STATE

SHARD_KEY = "shard"


def add_options(group) -> None:
    group.addoption("--tlbench-shard", default=None, metavar="I/N",
                    help="run shard I of N (1-based): a deterministic, cost-balanced share of the collected items, "
                         "each vendor item in every shard that needs it; N jobs cover the run once "
                         "(`tlbench merge` puts their JSON files back together)")
    group.addoption("--tlbench-shard-costs", default=None, metavar="RUN.json",
                    help="deal the shards by each item's cost in this earlier run's results file (its rounds, cold "
                         "build and instruction count, in seconds; an item it lacks costs the median of its backend "
                         "and kind there); default: by problem size")


def register(config) -> None:
    text = config.getoption("--tlbench-shard", None)
    if text is None:
        return
    try:
        spec = ShardSpec.parse(text)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.getoption("numprocesses", None):
        raise pytest.UsageError("--tlbench-shard does not combine with pytest-xdist -n: run one shard per host, and "
                                "spread a shard over its devices with --tlbench-devices=0,1,... instead")
    costs: dict[str, float] = {}
    cost_file = config.getoption("--tlbench-shard-costs", None)
    if cost_file:
        try:
            costs = item_costs([load_results(cost_file).document])
        except (ResultsError, OSError) as exc:
            raise pytest.UsageError(f"--tlbench-shard-costs {cost_file}: {exc}") from None
        if not costs:
            raise pytest.UsageError(f"--tlbench-shard-costs {cost_file}: no timed item to take costs from")
    config.pluginmanager.register(ShardPlugin(spec, costs), "tlbench-shard")


@dataclass(frozen=True)
class ShardEntry:
    nodeid: str
    cost: float
    problem: str | None = None  # suite file, backend, kind, problem id (None: not a tlbench item)
    vendor: bool = False


def split(entries: Sequence[ShardEntry], count: int) -> dict[str, tuple[int, ...]]:
    dealt = balance([(e.nodeid, e.cost, None) for e in entries if not e.vendor], count)
    load = [0.0] * count
    holders: dict[str, set[int]] = {}
    for e in entries:
        if not e.vendor:
            load[dealt[e.nodeid]] += e.cost
            if e.problem is not None:
                holders.setdefault(e.problem, set()).add(dealt[e.nodeid])
    out = {nodeid: (shard,) for nodeid, shard in dealt.items()}
    for e in sorted((e for e in entries if e.vendor), key=lambda e: e.nodeid):
        shards = holders.get(e.problem or "")
        if not shards:
            shards = {min(range(count), key=lambda s: (load[s], s))}
            load[next(iter(shards))] += e.cost
        out[e.nodeid] = tuple(sorted(shards))
    return out


def _entry(item, state, costs: Mapping[str, float] | None = None) -> ShardEntry:
    bench = state.items.items_by_id.get(item_id_of(item)) if state is not None else None
    if bench is None:  # not a tlbench item: dealt too (one unit), so the N jobs run it once
        return ShardEntry(item.nodeid, 1.0)
    problem = "|".join((item.nodeid.split("::", 1)[0], bench.backend, bench.kind, bench.case.problem.problem_id))
    cost = measured_cost(bench, costs) if costs else expected_cost(bench)
    return ShardEntry(item.nodeid, cost, problem, isinstance(bench.case, VendorCase))


def measured_cost(bench: Any, costs: Mapping[str, float]) -> float:
    """``bench``'s seconds in an earlier run, else the median of its backend and kind there, else of all."""
    if bench.item_id in costs:
        return costs[bench.item_id]
    same = [v for k, v in costs.items() if k.startswith(f"{bench.kind}-{bench.backend}-")]
    return statistics.median(same or list(costs.values()))


class ShardPlugin:
    def __init__(self, spec: ShardSpec, costs: Mapping[str, float] | None = None) -> None:
        self.spec = spec
        self.costs = dict(costs or {})  # --tlbench-shard-costs: item id -> seconds in an earlier run
        self.split_from: list[str] = []  # every node id the split was computed from
        self.run_items: list[str] = []  # the tlbench items among them
        self.selected = 0
        self.load = (0.0, 0.0)  # (this shard's expected cost, the run's)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        state = config.stash.get(STATE, None)
        entries = [_entry(i, state, self.costs) for i in items]
        shards = split(entries, self.spec.count)
        mine = self.spec.index - 1
        keep = [i for i in items if mine in shards[i.nodeid]]
        dropped = [i for i in items if mine not in shards[i.nodeid]]
        tlbench = {e.nodeid for e in entries if e.problem is not None}
        self.split_from = sorted({i.nodeid for i in items})
        self.run_items = sorted(tlbench)
        self.selected = sum(1 for i in keep if i.nodeid in tlbench)
        kept = {i.nodeid for i in keep}
        self.load = (sum(e.cost for e in entries if e.nodeid in kept), sum(e.cost for e in entries))
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep

    def pytest_report_collectionfinish(self, config, start_path, items) -> list[str]:
        return [
            f"tlbench shard {self.spec.label} on {socket.gethostname()}: {self.selected} of the run's "
            f"{len(self.run_items)} tlbench items (expected cost {self.load[0]:.1f} of {self.load[1]:.1f} "
            + ("seconds, as an earlier run took)" if self.costs else "units)")]

    def _stamp(self, config, record: dict[str, Any]) -> None:
        state = config.stash.get(STATE, None)
        loaded = state.registry.loaded() if state is not None else {}
        info = (loaded[record["backend"]].device_info() or {}) if record.get("backend") in loaded else {}
        device = record.get("device_uuid") or info.get("uuid") or info.get("accelerator")
        record.update({"shard": self.spec.label, "host": socket.gethostname(), "device": str(device) if device else None})

    @pytest.hookimpl(trylast=True)
    def pytest_benchmark_update_json(self, config, benchmarks, output_json) -> None:
        top = output_json.get(EXTRA_KEY) or {}
        output_json[EXTRA_KEY] = top = {"schema_version": SCHEMA_VERSION, "failed": [], "skipped": [], **top}
        state = config.stash.get(STATE, None)
        settings = state.settings() if state is not None else {}
        for varying in ("input_seed", "compile_jobs"):  # chosen per process / per host, not per run
            settings.pop(varying, None)
        if self.costs:  # the split depends on them: every shard must deal by the same ones
            settings["shard_costs"] = hashlib.sha256(json.dumps(sorted(self.costs.items())).encode()).hexdigest()[:16]
        top[SHARD_KEY] = {"index": self.spec.index, "count": self.spec.count, "label": self.spec.label,
                          "host": socket.gethostname(), "run_digest": run_digest(self.split_from),
                          "run_items": self.run_items, "selected": self.selected, "settings": settings}
        for bench in output_json.get("benchmarks") or []:
            record = (bench.get("extra_info") or {}).get(EXTRA_KEY)
            if isinstance(record, dict):
                self._stamp(config, record)
        for record in (*top.get("failed", ()), *top.get("skipped", ())):
            self._stamp(config, record)

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        """Write the file pytest-benchmark did not (nothing timed): a shard that ran is never missing."""
        config = session.config
        path = result_json_path(config)
        if path is None or session_timed_anything(config) or Path(path).exists():
            return  # timed, or already written this run (an earlier run's file was moved aside at start)
        from .xdist_support import merged_document

        document = merged_document(config, [], {}, {})
        config.hook.pytest_benchmark_update_json(config=config, benchmarks=[], output_json=document)
        write_json(config, document)
