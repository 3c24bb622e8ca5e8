"""An opt-in wall-clock trace of a run's phases, across its processes: where start-up goes.

Contract: with ``TLBENCH_TRACE=<file>``, ``mark(event, role, **fields)`` appends one JSON line
(one ``O_APPEND`` write); without it, nothing.  ``mark_first`` adds the process start and an exit
mark; ``read(path)``, ``timeline(lines)``.  A trace never fails a run.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

ENV = "TLBENCH_TRACE"


def process_start() -> float | None:
    """Epoch seconds at which this process started (from /proc; None where unknown)."""
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22: starttime, clock ticks since boot
        uptime = float(Path("/proc/uptime").read_text().split()[0])  # 10 ms resolution (btime has 1 s)
        return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def mark_first(event: str, role: str = "") -> None:
    """A process's first mark, with its start time; ``exit`` follows at exit (none after ``os._exit``)."""
    if os.environ.get(ENV):
        mark(event, role, started=process_start())
        atexit.register(mark, "exit", role)


def mark(event: str, role: str = "", **fields: Any) -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    who = "/".join(p for p in (os.environ.get("PYTEST_XDIST_WORKER", ""), role) if p) or "main"
    line = json.dumps({"t": time.time(), "pid": os.getpid(), "who": who, "event": event, **fields}, default=str) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        return


def read(path: str | Path) -> list[dict[str, Any]]:
    lines = []
    for text in Path(path).read_text().splitlines():
        try:
            lines.append(json.loads(text))
        except ValueError:
            pass
    return lines


def timeline(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per event, ``+seconds  who(pid)  event  fields``, in time order (a process's start its own)."""
    events = []
    for line in lines:
        if line.get("started"):
            events.append((float(line["started"]), line["who"], line["pid"], "process started", {}))
        extra = {k: v for k, v in line.items() if k not in ("t", "pid", "who", "event", "started")}
        events.append((float(line["t"]), line["who"], line["pid"], line["event"], extra))
    if not events:
        return []
    events.sort(key=lambda e: e[0])
    zero = events[0][0]
    return [f"+{t - zero:7.2f} s  {who}({pid})  {event}"
            + ("  " + " ".join(f"{k}={v}" for k, v in extra.items()) if extra else "")
            for t, who, pid, event, extra in events]


def main(argv: list[str]) -> int:
    """``python3 -m tlbench.harness.core.trace FILE``: the timeline; 2 with a usage or file error."""
    if len(argv) != 1:
        print("usage: python3 -m tlbench.harness.core.trace FILE  (a file TLBENCH_TRACE=FILE wrote)", file=sys.stderr)
        return 2
    try:
        lines = read(argv[0])
    except OSError as exc:
        print(f"trace: {argv[0]}: {exc.strerror or exc} (give the file a run wrote with TLBENCH_TRACE=FILE)", file=sys.stderr)
        return 2
    try:
        for text in timeline(lines):
            print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): the timeline was not wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
