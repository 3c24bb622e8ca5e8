"""Outputs that would destroy something: refused unless the user says ``--force``.

Contract: ``guard(outputs, inputs, force)`` raises ``OutputRefused`` (one line: which output,
what it would destroy, ``--force``) when an output path names one of the command's inputs
(the same file, however spelled), or an existing file that is a tlbench results file or a
run journal (told by its first bytes, not its name); ``None`` outputs are ignored.  With
``force`` nothing is refused.  ``looks_like(path)`` says what an existing file is
(``"results"``, ``"partial results"``, ``"journal"`` or None).  The commands call it before
they write anything.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

SNIFF_BYTES = 1 << 16


class OutputRefused(ValueError):
    """An output that would overwrite an input, a journal or a results file; one line."""


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def looks_like(path: str | Path) -> str | None:
    where = Path(path)
    if not where.is_file():
        return None
    try:
        with where.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
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
        return "results"
    return None


def guard(outputs: Iterable[str | Path | None], inputs: Iterable[str | Path], force: bool) -> None:
    if force:
        return
    ins = [Path(p) for p in inputs]
    for out in outputs:
        if out is None:
            continue
        target = Path(out)
        for source in ins:
            if _same(target, source) or target.resolve() == source.resolve():
                raise OutputRefused(f"{target}: is also an input of this command; writing it would destroy it "
                                    "(name another output file, or pass --force)")
        what = looks_like(target)
        if what is not None:
            raise OutputRefused(f"{target}: exists and is a tlbench {what} file; writing over it would destroy it "
                                "(name another output file, or pass --force)")
