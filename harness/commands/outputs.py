"""Outputs that would destroy something: refused unless the user says ``--force``.

Contract: ``guard(outputs, inputs, force, keep=(), replaceable=())`` raises ``OutputRefused`` (one
line, exit 2) for an output that is an input, lies in a ``keep`` folder, or is an existing results
file or journal not in ``replaceable``; ``guard_folder`` for a folder; ``looks_like(path)``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable

SNIFF_BYTES = 1 << 16
TAIL_BYTES = 1 << 18
PARTIAL_NOTE = re.compile(rb'"partial":\s*\{')  # a partial note is an object; a complete run's is null
FORCE_WORDS = "name another output, or pass --force"


class OutputRefused(ValueError):
    """An output that would overwrite an input, a baseline, a journal or a results file; one line."""


def _is_input(target: Path, source: Path) -> bool:
    try:
        same = target.exists() and source.exists() and os.path.samefile(target, source)
    except OSError:
        same = False
    return same or target.resolve() == source.resolve()


def _inside(target: Path, folder: Path) -> bool:
    resolved, where = target.resolve(), folder.resolve()
    return resolved == where or resolved.is_relative_to(where)


def looks_like(path: str | Path) -> str | None:
    where = Path(path)
    if not where.is_file():
        return None
    try:
        with where.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(len(head), size - TAIL_BYTES))
            tail = fh.read(TAIL_BYTES)  # a large file's top-level tlbench key (and its partial note) comes last
    except OSError:
        return None
    first = head.split(b"\n", 1)[0]
    if first.startswith(b"{") and b'"type"' in first and b'"journal_version"' in first:
        return "journal"
    if head[:2] == b"\x1f\x8b":
        return "results"
    if head.lstrip()[:1] == b"{" and (b'"benchmarks"' in head or b'"machine_info"' in head):
        if len(head) < SNIFF_BYTES:
            try:
                partial = (json.loads(head).get("tlbench") or {}).get("partial")
            except (ValueError, AttributeError):
                partial = None
            return "partial results" if partial else "results"
        return "partial results" if PARTIAL_NOTE.search(tail) or _partial_note_in(where) else "results"
    return None


def _partial_note_in(where: Path) -> bool:
    """Whether a large results file's top-level tlbench object holds a partial note, read whole:
    the tail missed it (a note that lists many missing items begins before the last bytes)."""
    try:
        with where.open("rb") as fh:
            document = json.load(fh)
    except (OSError, ValueError, RecursionError):
        return False
    top = document.get("tlbench") if isinstance(document, dict) else None
    return isinstance(top, dict) and isinstance(top.get("partial"), dict) and bool(top["partial"])


def guard(outputs: Iterable[str | Path | None], inputs: Iterable[str | Path], force: bool,
          keep: Iterable[str | Path] = (), replaceable: Iterable[str | Path] = ()) -> None:
    if force:
        return
    ins = [Path(p) for p in inputs]
    folders = [Path(p) for p in keep]
    replace = [Path(p) for p in replaceable]
    for out in outputs:
        if out is None:
            continue
        target = Path(out)
        for source in ins:
            if _is_input(target, source):
                raise OutputRefused(f"{target}: is also an input of this command; writing it would destroy it ({FORCE_WORDS})")
        for folder in folders:
            if _inside(target, folder):
                raise OutputRefused(f"{target}: is in the baseline directory {folder}, which only `tlbench baseline update` "
                                    f"changes ({FORCE_WORDS})")
        if any(_is_input(target, r) for r in replace):
            continue
        what = looks_like(target)
        if what in ("results", "journal"):
            raise OutputRefused(f"{target}: exists and is a tlbench {what} file; writing over it would destroy it ({FORCE_WORDS})")


def guard_folder(folder: str | Path, inputs: Iterable[str | Path], force: bool, keep: Iterable[str | Path] = ()) -> None:
    if force:
        return
    where = Path(folder)
    for source in (Path(p) for p in inputs):
        if _is_input(where, source):
            raise OutputRefused(f"{where}: is also an input of this command, not a folder to write into ({FORCE_WORDS})")
    for kept in (Path(p) for p in keep):
        if _inside(where, kept):
            raise OutputRefused(f"{where}: is the baseline directory {kept} or inside it, which only `tlbench baseline update` "
                                f"changes; write the night's files elsewhere (--out-dir), or pass --force")
