"""Split a run over the GPUs of a host by expected cost, each GPU with its own vendor item.

Contract (active only under ``pytest -n N`` with N > 1; workers are pinned one per GPU by
xdist_support.pin_worker):
- ``vendor_copies(worker_count)``: copies of each vendor item to collect, one per worker, so a
  kernel is judged against the vendor item of its own GPU (the copies share the case id; the
  pytest id says which: ``...-vendor-gpuK``);
- ``assign_groups(items, workers)``: one group per worker, balanced by expected cost, vendor copy
  K in group K;
- ``make_scheduler(config, log)``: the pytest-xdist scheduler used for ``-n N`` without ``--dist``:
  each group is one work unit, run whole on one worker (its GPU); other items keep pytest-xdist's
  per-module units.  (``--dist loadgroup`` does not keep a group on one worker with pytest 9.)
- ``expected_cost(item)`` (harness/measure/device_pieces.py): a balancing model only (one unit
  per item plus one per TFLOP its family counts), so big problems spread first.
- The controller never collects, so the workers tell it their costs: ``cost_folder(config)`` is a folder the
  controller makes for the session (removed at its end) and names to each worker
  (``workerinput["tlbench_cost_folder"]``); ``WorkerCosts``, registered in such a worker, writes ``{item id:
  expected_cost}`` of its final collection there (``write_costs``, after every
  ``pytest_collection_modifyitems``) and sets the worker's groups from them; the scheduler reads them
  (``read_costs``) before it deals, so both deal the same ids by the same costs. ``expected_cost_of_id``
  (``-MxNxK-`` in the id: 2MNK flops, else one unit) is the fallback for an id no worker reported.
- ``groups_of_nodeids(nodeids, workers, costs)`` / ``worker_group_items``: the groups from the
  collected node ids, so a worker prefetches and measures only its group, in one interleaved
  device phase (``workerinput["tlbench_cost_groups"]`` says the controller deals by group);
- ``balance(entries, groups)``: the longest-first, least-loaded dealing over ``(key, cost, copy)``
  entries (copy K to group K), for other splits too (``--tlbench-shard``: sharding.py);
- ``prefetch_lock(path)``: a cross-process lock around the compile prefetch, so one worker
  compiles every kernel and the others find them in tilelang's on-disk cache.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import pytest

from ..core.record import BenchItem
from ..measure.device_pieces import expected_cost
from .state import STATE

WORKER_COUNT_ENV = "PYTEST_XDIST_WORKER_COUNT"
COST_FOLDER_KEY = "tlbench_cost_folder"  # workerinput: where a worker writes its items' costs
_COST_FOLDER = pytest.StashKey[str]()


def worker_count() -> int:
    try:
        return int(os.environ.get(WORKER_COUNT_ENV, "0"))
    except ValueError:
        return 0


def vendor_copies(workers: int) -> list[int | None]:
    return list(range(workers)) if workers > 1 else [None]


def assign_groups(items: Sequence[BenchItem], workers: int) -> dict[str, int]:
    """item_id -> group index in [0, workers)."""
    return _lpt([(i.item_id, expected_cost(i), i.copy) for i in items], workers)


_ID = re.compile(r"\[((?:compile|device)-[^\]]*)\]$")
_SIZE = re.compile(r"-(\d+)x(\d+)x(\d+)-")
_COPY = re.compile(r"-gpu(\d+)$")


def expected_cost_of_id(item_id: str) -> float:
    """``expected_cost`` read off an item id (``gemm-MxNxK-...``: 2MNK flops)."""
    size = _SIZE.search(item_id)
    flops = 2 * int(size[1]) * int(size[2]) * int(size[3]) if size else 0
    return 1.0 + flops / 1e12


def _lpt(entries: Sequence[tuple[str, float, int | None]], workers: int) -> dict[str, int]:
    groups: dict[str, int] = {}
    load = [0.0] * workers
    for key, cost, copy in entries:
        if copy is not None:
            groups[key] = copy % workers
            load[copy % workers] += cost
    for key, cost, _ in sorted((e for e in entries if e[2] is None), key=lambda e: (-e[1], e[0])):
        target = min(range(workers), key=lambda g: (load[g], g))
        groups[key] = target
        load[target] += cost
    return groups


def balance(entries: Sequence[tuple[str, float, int | None]], groups: int) -> dict[str, int]:
    """key -> group index in [0, groups): longest first, each to the least-loaded group."""
    return _lpt(entries, max(1, groups))


def groups_of_nodeids(nodeids: Sequence[str], workers: int, costs: Mapping[str, float] | None = None) -> dict[str, int]:
    """tlbench item id -> its group, from the collected pytest node ids in collection order:
    what the controller's scheduler computes, and what a worker computes from its own
    (identical) collection to know which items will come to it (``worker_group_items``).
    ``costs``: item id -> ``expected_cost`` where the items are known; an id without one is
    read by ``expected_cost_of_id``."""
    known = costs or {}
    ids = [m[1] for m in (_ID.search(n) for n in nodeids) if m]
    entries = [(i, float(known[i]) if i in known else expected_cost_of_id(i), int(c[1]) if (c := _COPY.search(i)) else None)
               for i in ids]
    return _lpt(entries, max(1, workers))


def expected_costs(items: Sequence[BenchItem]) -> dict[str, float]:
    """item id -> ``expected_cost``: what a worker tells the controller."""
    return {i.item_id: expected_cost(i) for i in items}


def collected_costs(pytest_items: Sequence[Any], items_by_id: Mapping[str, BenchItem]) -> dict[str, float]:
    """``expected_costs`` of the tlbench items among collected pytest items."""
    ids = [getattr(getattr(i, "callspec", None), "params", {}).get("tlbench_item") for i in pytest_items]
    return expected_costs([items_by_id[i] for i in ids if i in items_by_id])


def worker_groups(pytest_items: Sequence[Any], items_by_id: Mapping[str, BenchItem]) -> dict[str, int]:
    """A worker's groups from its final collection, dealt by the same costs it wrote for the
    controller (``WorkerCosts``): the controller's units are these groups."""
    return groups_of_nodeids([i.nodeid for i in pytest_items], worker_count(), collected_costs(pytest_items, items_by_id))


def cost_folder(config: Any) -> str:
    """The controller's folder for this session's worker costs, made once, removed at the end."""
    folder = config.stash.get(_COST_FOLDER, None)
    if folder is None:
        folder = tempfile.mkdtemp(prefix="tlbench-xdist-costs-")
        config.stash[_COST_FOLDER] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    return folder


def write_costs(folder: str, worker: str, costs: Mapping[str, float]) -> None:
    """``costs`` as ``<folder>/<worker>.json``, whole or not at all (written aside, then renamed)."""
    target = Path(folder) / f"{worker}.json"
    aside = target.with_suffix(".part")
    aside.write_text(json.dumps(dict(costs), sort_keys=True))
    os.replace(aside, target)


def read_costs(folder: str | None) -> dict[str, float]:
    """Every worker's costs in ``folder`` (the workers collect the same items: the same costs)."""
    costs: dict[str, float] = {}
    for path in sorted(Path(folder).glob("*.json")) if folder else ():
        costs.update(json.loads(path.read_text()))
    return costs


class WorkerCosts:
    """In an xdist worker of the group scheduler: after every ``pytest_collection_modifyitems``,
    the collected items' costs written where the controller reads them (the worker deals its
    own groups by the same costs at the end of collection: ``worker_groups``)."""

    def __init__(self, folder: str, worker: str) -> None:
        self.folder, self.worker = folder, worker

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, session, config, items):
        result = yield
        state = config.stash.get(STATE, None)
        write_costs(self.folder, self.worker, collected_costs(items, state.items.items_by_id if state is not None else {}))
        return result


def register_worker_costs(config: Any) -> None:
    """In a worker the controller gave a cost folder that exists here (the same host): register
    ``WorkerCosts``."""
    folder = (getattr(config, "workerinput", None) or {}).get(COST_FOLDER_KEY)
    if folder and os.path.isdir(folder):
        worker = str(config.workerinput.get("workerid", os.getpid()))
        config.pluginmanager.register(WorkerCosts(folder, worker), "tlbench-xdist-worker-costs")


def worker_group_items(items: Sequence[BenchItem], groups: dict[str, int], first_item_id: str) -> list[BenchItem] | None:
    """The items of the group that ``first_item_id`` (the first item this worker was given)
    belongs to: a group is one work unit of the scheduler, so all of it runs here, and the
    worker can measure it as one interleaved device phase with its own vendor copy.  None
    when that item is in no group (the worker then measures item by item)."""
    mine = groups.get(first_item_id)
    return [i for i in items if groups.get(i.item_id) == mine] if mine is not None else None


def make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class CostGroupScheduling(LoadScopeScheduling):
        """pytest-xdist's scope scheduler with tlbench's cost-balanced groups as the scopes."""

        _groups: dict[str, int] | None = None

        def _split_scope(self, nodeid: str) -> str:
            match = _ID.search(nodeid)
            if match is None:
                return super()._split_scope(nodeid)
            if self._groups is None:  # every worker has collected by now, and written its costs
                self._groups = groups_of_nodeids(self.collection or [], max(1, len(self.nodes)),
                                                 read_costs(config.stash.get(_COST_FOLDER, None)))
            return f"tlbench-group-{self._groups.get(match[1], 0)}"

    return CostGroupScheduling(config, log)


@contextmanager
def prefetch_lock(path: str) -> Iterator[None]:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
