"""Split a run over the GPUs of a host by expected cost, each GPU with its own vendor item.

Contract (``pytest -n N``, N > 1): ``vendor_copies(workers)``; ``make_scheduler`` runs each
cost-balanced group whole on one worker; workers write their costs (``WorkerCosts``) and both sides
deal the same ids (``groups_of_nodeids``, ``balance``); ``worker_group_items``; ``prefetch_lock``.
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
from .manners import item_id_of
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
    return balance([(i.item_id, expected_cost(i), i.copy) for i in items], workers)


_ID = re.compile(r"\[((?:compile|device)-[^\]]*)\]$")
_SIZE = re.compile(r"-(\d+)x(\d+)x(\d+)-")
_COPY = re.compile(r"-gpu(\d+)$")


def expected_cost_of_id(item_id: str) -> float:
    """``expected_cost`` read off an item id (``gemm-MxNxK-...``: 2MNK flops)."""
    size = _SIZE.search(item_id)
    flops = 2 * int(size[1]) * int(size[2]) * int(size[3]) if size else 0
    return 1.0 + flops / 1e12


def balance(entries: Sequence[tuple[str, float, int | None]], workers: int) -> dict[str, int]:
    """key -> group in [0, workers): copy K to group K, then longest first to the least loaded."""
    workers = max(1, workers)
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


def groups_of_nodeids(nodeids: Sequence[str], workers: int, costs: Mapping[str, float] | None = None) -> dict[str, int]:
    """tlbench item id -> its group, from the node ids in collection order (the controller's and
    each worker's identical answer); an id without a known cost is read by ``expected_cost_of_id``."""
    known = costs or {}
    ids = [m[1] for m in (_ID.search(n) for n in nodeids) if m]
    entries = [(i, float(known[i]) if i in known else expected_cost_of_id(i), int(c[1]) if (c := _COPY.search(i)) else None)
               for i in ids]
    return balance(entries, workers)


def expected_costs(items: Sequence[BenchItem]) -> dict[str, float]:
    return {i.item_id: expected_cost(i) for i in items}


def collected_costs(pytest_items: Sequence[Any], items_by_id: Mapping[str, BenchItem]) -> dict[str, float]:
    return expected_costs([items_by_id[i] for i in map(item_id_of, pytest_items) if i in items_by_id])


def worker_groups(pytest_items: Sequence[Any], items_by_id: Mapping[str, BenchItem]) -> dict[str, int]:
    return groups_of_nodeids([i.nodeid for i in pytest_items], worker_count(), collected_costs(pytest_items, items_by_id))


def cost_folder(config: Any) -> str:
    folder = config.stash.get(_COST_FOLDER, None)
    if folder is None:
        folder = tempfile.mkdtemp(prefix="tlbench-xdist-costs-")
        config.stash[_COST_FOLDER] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    return folder


def write_costs(folder: str, worker: str, costs: Mapping[str, float]) -> None:
    """Written aside, then renamed: whole or not at all."""
    target = Path(folder) / f"{worker}.json"
    aside = target.with_suffix(".part")
    aside.write_text(json.dumps(dict(costs), sort_keys=True))
    os.replace(aside, target)


def read_costs(folder: str | None) -> dict[str, float]:
    costs: dict[str, float] = {}
    for path in sorted(Path(folder).glob("*.json")) if folder else ():
        costs.update(json.loads(path.read_text()))
    return costs


class WorkerCosts:
    """A worker's collected items' costs, written after every ``pytest_collection_modifyitems``."""

    def __init__(self, folder: str, worker: str) -> None:
        self.folder, self.worker = folder, worker

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, session, config, items):
        result = yield
        state = config.stash.get(STATE, None)
        write_costs(self.folder, self.worker, collected_costs(items, state.items.items_by_id if state is not None else {}))
        return result


def register_worker_costs(config: Any) -> None:
    folder = (getattr(config, "workerinput", None) or {}).get(COST_FOLDER_KEY)
    if folder and os.path.isdir(folder):
        worker = str(config.workerinput.get("workerid", os.getpid()))
        config.pluginmanager.register(WorkerCosts(folder, worker), "tlbench-xdist-worker-costs")


def worker_group_items(items: Sequence[BenchItem], groups: dict[str, int], first_item_id: str) -> list[BenchItem] | None:
    """The group of this worker's first item, all of which runs here (None: in no group)."""
    mine = groups.get(first_item_id)
    return [i for i in items if groups.get(i.item_id) == mine] if mine is not None else None


def make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class CostGroupScheduling(LoadScopeScheduling):
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
