"""How a compile item was measured, as far as a comparison of two runs must know.

Contract, over timed compile records as written: ``width(rec)`` (items its rounds were taken
round-robin with; 1: back to back), ``option_method(rec)`` (what the options set, ``OPTIONS``;
method_match.py refuses a pair that differs), ``width_difference`` / ``back_to_back_differs``
(back to back reads 7-24 % faster than round-robin over 14 items) and ``overlap_words`` /
``overlap_difference`` (built alone or beside device timing).
"""

from __future__ import annotations

from typing import Any, Mapping

OPTIONS = ("--tlbench-compile-rounds", "--tlbench-compile-max-seconds", "--tlbench-compile-jobs")


def width(rec: Mapping[str, Any]) -> int:
    value = rec.get("compile_round_robin")
    return int(value) if isinstance(value, int) and value > 1 else 1


def option_method(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The rounds the options asked for (``compile_rounds_asked``; a record without it: the
    rounds it took, unless a time cap stopped it early - then the asked rounds are unknown and
    left out, so the pair is noted, not refused), the time cap where one was set, the jobs."""
    samples = rec.get("samples_s")
    jobs = rec.get("compile_jobs")
    asked = rec.get("compile_rounds_asked")
    if not isinstance(asked, int):
        asked = len(samples) if isinstance(samples, list) and "compile_rounds_capped_s" not in rec else None
    method: dict[str, Any] = {} if asked is None else {"compile rounds": asked}
    cap = rec.get("compile_max_seconds")
    if isinstance(cap, (int, float)):
        method["compile cap s"] = float(cap)
    method["compile jobs"] = int(jobs) if isinstance(jobs, int) and jobs > 1 else 1
    return method


def _words(w: int) -> str:
    return "back to back" if w == 1 else f"round-robin over {w} items"


def width_difference(base: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    wb, wn = width(base), width(new)
    return None if wb == wn else f"rounds taken {_words(wb)} in base, {_words(wn)} in new"


def back_to_back_differs(base: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """One run took the item's rounds back to back, the other round-robin."""
    return (width(base) == 1) != (width(new) == 1)


def overlap_words(rec: Mapping[str, Any]) -> str:
    """``alone``, or ``beside <what>`` for a record measured beside the other kind's work (its ``overlap``)."""
    note = rec.get("overlap")
    if not note:
        return "alone"
    beside = note.get("beside") if isinstance(note, Mapping) else None
    return f"beside {beside}" if beside else "beside other work"


def overlap_difference(base: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    """None when both runs built the item the same way as to overlap (both alone, or both
    beside device timing), else the words: builds beside a device worker share the host with
    it unevenly (seen on an H200 A/A: one item +69 % against its run, overlap off -> auto)."""
    wb, wn = overlap_words(base), overlap_words(new)
    return None if wb == wn else f"built {wb} in base, {wn} in new"
