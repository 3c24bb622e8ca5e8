"""What a whole-run shift is put down to, from what the records say: the kernel code or the rest.

Contract (pure): ``cause(pairs)`` over (base, new) records as written: each ``kernel_hash``
tells a changed kernel body (the kernel code) from unchanged ones (the toolchain or the
harness); without hashes it cannot tell.  ``named(shift, pairs)``: the ``RunShift`` with that
cause instead of the generic one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

GENERIC = "a toolchain or harness change"


def cause(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> str:
    known = [(b.get("kernel_hash"), n.get("kernel_hash")) for b, n in pairs if b.get("kernel_hash") and n.get("kernel_hash")]
    if not known:
        return "a change of the kernel code, the toolchain or the harness (the records carry no kernel_hash to tell which)"
    changed = sum(1 for b, n in known if b != n)
    if changed == 0:
        return f"the kernel bodies are unchanged (kernel_hash, {len(known)} of {len(known)}): {GENERIC}"
    if changed == len(known):
        return f"every kernel's body changed (kernel_hash, {changed} of {len(known)}): a change of the kernel code"
    return (f"the body changed in {changed} of {len(known)} kernels (kernel_hash): a change of the kernel code, "
            "and the unchanged ones moved too: the toolchain or the harness as well")


def named(shift: Any, pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> Any:
    if shift is None or shift.verdict != "SHIFT" or not shift.words.endswith(GENERIC):
        return shift
    return replace(shift, words=shift.words[: -len(GENERIC)] + cause(pairs))
