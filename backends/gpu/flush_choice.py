"""How a CUDA GPU's timers empty L2 before each call (the NVIDIA backend's ``--tlbench-nvidia-l2-flush``).

Contract: ``flush_mode(value)`` returns the choice or raises a ``ValueError`` naming the option and
the valid values; ``flush_caveat`` and ``read_flush_note`` are records' notes, ``flush_mode_of``
reads the mode back; ``split_at_flushes`` and ``groups_at_flushes`` split a kernel stream into
calls.  No torch or tilelang imported.
"""

from __future__ import annotations

from typing import Collection, Iterable

FLUSH_MODES = ("write", "read")
DEFAULT_FLUSH_MODE = "write"
FLUSH_OPTION = "--tlbench-nvidia-l2-flush"


def flush_mode(value: str | None) -> str:
    """The L2 flush mode ``value`` names (None or empty: the default, ``write``)."""
    if not value:
        return DEFAULT_FLUSH_MODE
    if value not in FLUSH_MODES:
        raise ValueError(f"{FLUSH_OPTION} wants one of {', '.join(FLUSH_MODES)}, got {value!r}")
    return value


OFF = "off"  # flush_mode_of: nothing was flushed (l2_flush_bytes 0)
READ_NOTE_PREFIX = "L2 flush: read "


def read_flush_note(nbytes: int) -> str:
    """The note of a record timed after a ``read`` flush of ``nbytes`` bytes."""
    return f"{READ_NOTE_PREFIX}{nbytes} bytes (clean lines; {FLUSH_OPTION}=read)"


def flush_mode_of(l2_flush_bytes: object, notes: object) -> str | None:
    """``off``, ``read`` or ``write`` (flushed, no ``read_flush_note``); None: a field absent."""
    if l2_flush_bytes is None:
        return None
    if not l2_flush_bytes:
        return OFF
    if not isinstance(notes, list):
        return None
    return "read" if any(isinstance(n, str) and n.startswith(READ_NOTE_PREFIX) for n in notes) else "write"


def flush_caveat(timer: str, mode: str, flushed: bool) -> str | None:
    """The note of a graph-timed record after a read flush: the call pays its write-back."""
    if timer == "graph" and mode == "read" and flushed:
        return ("graph timer after a read flush: the call's dirty lines are written back during the next flush, "
                "which the flush-only graph does not do, so that write-back is charged to the call (ncu and CUPTI leave it out)")
    return None


def groups_at_flushes(records: Iterable[tuple],
                      flush_names: Collection[str]) -> tuple[list[list[tuple]], tuple | None]:
    """Records (name first) in launch order -> the records after each flush, one group per flush (a
    run of flush kernels is one separator), and the first record before any flush (None: none)."""
    groups: list[list[tuple]] = []
    before = None
    in_flush = False
    for record in records:
        if record[0] in flush_names:
            if not in_flush:
                groups.append([])
            in_flush = True
            continue
        in_flush = False
        if groups:
            groups[-1].append(record)
        elif before is None:
            before = record
    return groups, before


def split_at_flushes(kernels: Iterable[tuple[str, float]],
                     flush_names: Collection[str]) -> tuple[list[float], str | None]:
    """(name, duration) records -> each call's summed duration (0.0 where no kernel follows a
    flush), and the name of the first kernel before any flush."""
    groups, before = groups_at_flushes(kernels, flush_names)
    calls = [sum((duration for _, duration in group), 0.0) for group in groups]
    return calls, before[0] if before is not None else None
