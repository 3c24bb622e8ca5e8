"""Instruction counts for a backend's compile items, after their timed rounds.

Contract: ``InstructionCounting(...)(backend, batch, outcomes)`` gives every timed outcome a
``record["instructions"]``: its rounds' hardware counts, else (mode ``subset`` / ``all``;
``auto``: ``all`` where callgrind can) callgrind's count in ``jobs`` children, else ``absent``.
"""

from __future__ import annotations

import statistics
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..core import trace
from ..core.record import BenchItem
from . import instructions
from .callgrind import CountRequest, callgrind_reason, count_under_callgrind
from .compile_phase import NoLine, balanced_shares
from .hardware_counter import hardware_reason
from .instructions import KEY, absent


def count_shares(items: Sequence[BenchItem], jobs: int, seconds: Mapping[str, float]) -> list[list[BenchItem]]:
    """``items`` in ``jobs`` shares of about equal cost, each cheapest first (it pays warm-up)."""
    def cost(item: BenchItem) -> float:
        return seconds.get(item.item_id, 0.0)

    ordered = sorted(items, key=lambda i: (-cost(i), i.item_id))
    shares = balanced_shares(ordered, jobs, cost)
    return [sorted(share, key=lambda i: (cost(i), i.item_id)) for share in shares if share]


@dataclass(frozen=True)
class InstructionCounting:
    mode: str = instructions.DEFAULT_MODE
    subset: int = instructions.DEFAULT_SUBSET
    device: bool = False
    factory_of: Callable[[str], str | None] = lambda _name: None  # backend -> "module:qualname"
    options: Mapping[str, Any] = field(default_factory=dict)
    env_of: Callable[[str], Mapping[str, str]] = lambda _name: {}  # backend -> its child's environment (no device)
    count: Callable[[CountRequest], dict[str, dict[str, object]]] = count_under_callgrind
    callgrind_missing: Callable[[], str | None] = callgrind_reason  # auto: why callgrind cannot count here (None: it can)
    board: Any = None  # the run's progress board (harness/pytest_plugin/progress.py): a line per backend's count

    max_lowering_s: float = instructions.SUBSET_MAX_LOWERING_S  # subset: items whose timed rounds took longer are left out
    jobs: int = 1  # count children side by side (each its own share, balanced by the items' timed rounds)

    def __call__(self, backend: str, batch: Sequence[BenchItem], outcomes: Mapping[str, Any]) -> None:
        timed = [it for it in batch if getattr(outcomes.get(it.item_id), "status", "") == "timed"]
        need = [it for it in timed if KEY not in outcomes[it.item_id].record]  # hardware counts are in already
        if not need:
            return
        seconds = {it.item_id: statistics.median(outcomes[it.item_id].record.get("samples_s") or [0.0]) for it in need}
        costs = {it.item_id: statistics.median(outcomes[it.item_id].record.get("cpu_samples_s") or [seconds[it.item_id]])
                 for it in need}  # CPU seconds: what a count's cost follows, whatever the load
        for item_id, value in self.values(backend, need, seconds, costs).items():
            outcomes[item_id].record[KEY] = value

    def values(self, backend: str, items: Sequence[BenchItem], seconds: Mapping[str, float] | None = None,
               costs: Mapping[str, float] | None = None) -> dict[str, dict[str, object]]:
        """``seconds``: median timed rounds (the subset's cap); ``costs``: CPU seconds, to deal
        items."""
        hardware = hardware_reason() or "the hardware counter gave no count for this item's rounds"
        mode = self.mode
        if mode == "auto":
            missing = self.callgrind_missing()
            if missing:
                return {it.item_id: absent(f"{hardware}; callgrind cannot count here: {missing}") for it in items}
            mode = "all"
        if mode == "hardware":
            return {it.item_id: absent(f"{hardware}; callgrind counts with --tlbench-instructions subset or all")
                    for it in items}
        seconds = seconds or {}
        cheap = [it for it in items if mode == "all" or seconds.get(it.item_id, 0.0) <= self.max_lowering_s]
        out = {it.item_id: absent(
            f"{hardware}; left out of the callgrind subset: its timed round took {seconds[it.item_id]:.1f} s, "
            f"over the subset's {self.max_lowering_s:g} s (callgrind runs it about 40x slower); "
            "--tlbench-instructions all counts it") for it in items if it not in cheap}
        chosen = cheap if mode == "all" else instructions.subset_of(cheap, self.subset)
        left = f"{hardware}; not in the callgrind subset ({len(chosen)} of the {len(cheap)} compile items of {backend} here " \
               f"whose rounds took {self.max_lowering_s:g} s or less, chosen by a hash of the case id; " \
               "--tlbench-instructions all counts every one)"
        out.update({it.item_id: absent(left) for it in cheap if it not in chosen})
        if not chosen:
            return out
        factory = self.factory_of(backend)
        if factory is None:
            words = f"{hardware}; {backend}'s factory has no import path for the callgrind child"
            return {it.item_id: absent(words) for it in items}
        shares = count_shares(chosen, min(max(1, self.jobs), len(chosen)), costs or seconds)
        trace.mark("instruction count start", backend=backend, items=len(chosen), children=len(shares))
        line = self.board.phase(f"count {backend}", f"instruction counts {backend} (callgrind, cold lowering)", "items") \
            if self.board is not None else NoLine()
        line.update(0, len(chosen), f"{len(shares)} child process{'es' if len(shares) != 1 else ''} under valgrind")
        tick = self.board.tick if self.board is not None else None
        done = [0] * len(shares)

        def counted(k: int) -> Callable[[int], None]:
            def update(n: int) -> None:
                done[k] = n
                line.update(sum(done), len(chosen))
            return update

        stop = threading.Event()  # set on a Ctrl-C here: each thread kills its child at once (callgrind.py)
        requests = [CountRequest(tuple(share), factory, dict(self.options), dict(self.env_of(backend)), self.device,
                                 tick=tick, counted=counted(k), stop=stop) for k, share in enumerate(shares)]
        try:
            if len(requests) == 1:
                out.update(self.count(requests[0]))
            else:
                with ThreadPoolExecutor(max_workers=len(requests), thread_name_prefix="tlbench-count") as pool:
                    try:
                        futures = [pool.submit(self.count, r) for r in requests]  # each waits on its own child process
                        while not wait(futures, timeout=1.0).done == set(futures):
                            if tick is not None:
                                tick()  # this thread writes the lines the children's threads left due
                    except BaseException:  # a Ctrl-C lands here, not in the threads: stop their children before
                        stop.set()  # the pool waits for the threads (else each waits for its child to finish)
                        raise
                    for future in futures:
                        out.update(future.result())
        finally:
            line.update(len(chosen), len(chosen))
            line.end()
        trace.mark("instruction count end", backend=backend)
        return out
