"""Instructions executed by a compile item's cold lowering: a compile metric that load cannot move.

Contract: ``add_options(group)`` declares the ``--tlbench-instructions*`` options;
``absent(reason)`` is the record value where nothing was counted; ``host_cpu()``, ``subset_of(items,
n)``, ``count_jobs(text, cpus)``.  ``record["instructions"]`` holds counts, never times.
"""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path
from typing import Any, Sequence

from ..core.record import BenchItem

MODES = ("auto", "hardware", "subset", "all")
DEFAULT_MODE = "auto"
DEFAULT_SUBSET = 2
# subset: an item whose timed round took longer is left out (callgrind takes ~40x; one flash-
# attention lowering of 14.8 s took 9 min to count on the 2-core box)
SUBSET_MAX_LOWERING_S = 3.0
KEY = "instructions"  # the record's key
CALLGRIND = "callgrind"
HARDWARE = "hardware"


def add_options(group: Any) -> None:
    group.addoption("--tlbench-instructions", default=DEFAULT_MODE, choices=MODES,
                    help="count the instructions of compile items' cold lowering: auto (default: a hardware counter "
                         "where the machine has one, else - where valgrind is installed - Valgrind's callgrind on every "
                         "compile item of the smoke and full scopes, ~50x slower than the lowering itself; the quick "
                         "scope counts under callgrind only when asked), hardware (a hardware counter only), subset / all "
                         "(a hardware counter, else callgrind on --tlbench-instructions-subset items per backend, or on "
                         "every compile item)")
    group.addoption("--tlbench-instructions-subset", type=int, default=DEFAULT_SUBSET, metavar="N",
                    help=f"compile items per backend counted under callgrind with --tlbench-instructions subset "
                         f"(default {DEFAULT_SUBSET}; the same ones every run: the first N by a hash of the case id "
                         f"among those whose timed rounds took {SUBSET_MAX_LOWERING_S:g} s or less)")
    group.addoption("--tlbench-instructions-jobs", default="auto", metavar="N|auto",
                    help="callgrind count children side by side, the items dealt among them by cost (default auto: "
                         "one per CPU this process may use; counts do not depend on it)")
    group.addoption("--tlbench-instructions-device", action="store_true", default=False,
                    help="under callgrind, also count the device compiler's processes (one more cold build per "
                         "counted item, all of it under callgrind: minutes per item)")


def absent(reason: str) -> dict[str, object]:
    return {"absent": reason}


def host_cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def subset_of(items: Sequence[BenchItem], n: int) -> list[BenchItem]:
    """The first ``n`` of ``items`` by a hash of the case id (stable across runs), in item order."""
    ranked = sorted(items, key=lambda it: hashlib.sha256(it.case.case_id.encode()).hexdigest())
    chosen = {it.item_id for it in ranked[:max(0, n)]}
    return [it for it in items if it.item_id in chosen]


def count_jobs(text: str, cpus: int) -> int:
    """``--tlbench-instructions-jobs``: a positive integer, or ``auto`` (``cpus``); raises ValueError."""
    text = str(text).strip().lower()
    if text == "auto":
        return max(1, cpus)
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"--tlbench-instructions-jobs takes a positive integer or 'auto', got {text!r}")
    return int(text)
