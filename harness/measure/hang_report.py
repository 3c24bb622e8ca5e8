"""Where a device worker was when it ran past its stage's limit: its Python stacks, read before it
is killed.

Contract: ``arm()`` (in the worker) makes ``SIGUSR1`` dump every thread's stack to stderr.
``capture(pid, log, wait_s) -> Stacks``: the dump (``text``, main thread first) and ``where`` (its
innermost frames on one line, or why there are none).  Nothing here kills.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SIGNAL = getattr(signal, "SIGUSR1", None)  # None where the platform has none (Windows): no stacks there
MARK = "tlbench worker main thread"
MAX_CHARS = 20_000
FRAMES = 4
_THREAD = re.compile(r"^(?:Current thread|Thread) (0x[0-9a-f]+)", re.MULTILINE)
_FRAME = re.compile(r'^\s+File "([^"]+)", line (\d+) in (\S+)', re.MULTILINE)


@dataclass(frozen=True)
class Stacks:
    where: str
    text: str


def arm() -> None:
    """In the worker: dump all threads' stacks to stderr on ``SIGUSR1`` (it keeps running)."""
    import faulthandler
    import sys

    if SIGNAL is None:
        return
    print(f"{MARK} 0x{threading.main_thread().ident:016x}", file=sys.stderr, flush=True)
    faulthandler.register(SIGNAL, file=sys.stderr, all_threads=True, chain=False)


def _size(log: Path) -> int:
    try:
        return log.stat().st_size
    except OSError:
        return 0


def capture(pid: int, log: Path | None, wait_s: float = 3.0) -> Stacks:
    if SIGNAL is None:
        return Stacks("no stacks: this platform has no SIGUSR1", "")
    if log is None:
        return Stacks("no stacks: the worker has no log", "")
    before = _size(log)
    try:
        os.kill(pid, SIGNAL)
    except OSError as exc:
        return Stacks(f"no stacks: the signal could not be sent ({exc})", "")
    deadline, last, still = time.monotonic() + wait_s, before, 0
    while time.monotonic() < deadline and still < 3:  # grown, then unchanged for 0.3 s
        time.sleep(0.1)
        size = _size(log)
        still = still + 1 if size == last and size > before else 0
        last = size
    try:
        with open(log, "rb") as f:
            head = f.read(4096).decode(errors="replace")
            f.seek(before)
            dump = f.read().decode(errors="replace")
    except OSError as exc:
        return Stacks(f"no stacks: the log could not be read ({exc})", "")
    if not _THREAD.search(dump):
        return Stacks(f"no stacks: the worker did not answer {SIGNAL.name} within {wait_s:.0f} s "
                      "(a process stuck inside the kernel, in a driver call, handles no signal)", "")
    main = _main_thread(head)
    blocks = _thread_blocks(dump)
    ordered = sorted(blocks, key=lambda b: b[0] != main)
    text = "\n\n".join(block for _, block in ordered)[:MAX_CHARS]
    return Stacks(_where(ordered[0][1]) if ordered and ordered[0][0] == main else "main thread not found in the dump", text)


def _main_thread(head: str) -> str | None:
    found = re.search(re.escape(MARK) + r" (0x[0-9a-f]+)", head)
    return found.group(1) if found else None


def _thread_blocks(dump: str) -> list[tuple[str, str]]:
    starts = list(_THREAD.finditer(dump))
    return [(m.group(1), dump[m.start(): starts[i + 1].start() if i + 1 < len(starts) else len(dump)].rstrip())
            for i, m in enumerate(starts)]


def _where(block: str) -> str:
    frames = [f"{Path(path).name}:{line} {name}" for path, line, name in _FRAME.findall(block)[:FRAMES]]
    return " <- ".join(frames) or "no Python frames"
