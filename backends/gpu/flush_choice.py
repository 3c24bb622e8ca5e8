"""How a CUDA GPU's timers empty L2 before each call (the NVIDIA backend's ``--tlbench-nvidia-l2-flush``).

Contract: ``FLUSH_MODES`` are the choices, ``DEFAULT_FLUSH_MODE`` (``write``) is used when the option is not given;
``flush_mode(value)`` returns the choice or raises a ``ValueError`` naming the option and the valid values;
``flush_caveat(timer, mode, flushed)`` is the note a record carries where its timer and flush mode measure something
ncu does not; ``split_at_flushes(kernels, flush_names)`` splits a stream of kernel records at the flushes into one
summed duration per call (CUPTI's records in timing.py, ncu's rows in backends/tools/timer_table.py).
``read_flush_note(nbytes)`` is the note a record timed after a ``read`` flush carries (the only place the mode is
written into a record), and ``flush_mode_of(l2_flush_bytes, notes)`` reads the mode back from a record's fields:
``off`` (nothing flushed), ``read`` (that note), ``write`` (the default, which writes no note), or None where the
record does not say (a field absent: an older file).  The flush itself is backends/gpu/timing.py ``L2Flush``.
Importing this module imports neither torch nor tilelang (traits read ``FLUSH_MODES``).
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
    """The L2 flush a record was timed after, from its ``l2_flush_bytes`` and ``notes``: ``off``, ``read`` or
    ``write``; None when a field it needs is absent (an older results file).  Every record of a ``read`` flush has
    carried ``read_flush_note`` since that mode exists, so a flushed record without it was timed after a ``write``
    flush."""
    if l2_flush_bytes is None:
        return None
    if not l2_flush_bytes:
        return OFF
    if not isinstance(notes, list):
        return None
    return "read" if any(isinstance(n, str) and n.startswith(READ_NOTE_PREFIX) for n in notes) else "write"


def flush_caveat(timer: str, mode: str, flushed: bool) -> str | None:
    """The note a record carries when its timer and L2 flush mode do not measure the same thing as ncu: the graph
    timer subtracts a graph of flushes alone, and after a read flush the call's own dirty lines are written back by
    the next flush, so that write-back lands on the call."""
    if timer == "graph" and mode == "read" and flushed:
        return ("graph timer after a read flush: the call's dirty lines are written back during the next flush, "
                "which the flush-only graph does not do, so that write-back is charged to the call (ncu and CUPTI leave it out)")
    return None


def split_at_flushes(kernels: Iterable[tuple[str, float]], flush_names: Collection[str]) -> tuple[list[float], str | None]:
    """(name, duration) records in launch order -> the summed duration of the kernels after each flush, one entry
    per flush (a flush of several kernels in a row is one separator; a flush that no kernel follows gives 0.0), and
    the name of the first kernel before any flush (None when the records start with a flush)."""
    calls: list[float] = []
    before: str | None = None
    in_flush = False
    for name, duration in kernels:
        if name in flush_names:
            if not in_flush:
                calls.append(0.0)
            in_flush = True
            continue
        in_flush = False
        if calls:
            calls[-1] += duration
        elif before is None:
            before = name
    return calls, before
