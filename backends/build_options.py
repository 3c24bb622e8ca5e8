"""What both backends build a case with besides its body, read from the case's traits
(harness/core/kernel_traits.py): the requested target's check and ``out_idx``.

Contract: ``refuse_foreign_target(case, dialect, kind, backend_name, own)`` raises
``CompileError`` when the kernel asks for a target (a jit's ``target=``) whose kind is not the
backend's (None and ``auto`` mean the backend's own); ``out_idx(case, dialect)`` is the list
tilelang's ``compile`` takes, or None.
"""

from __future__ import annotations

from typing import Any

from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.backend_api import CompileError


def refuse_foreign_target(case: Any, dialect: str, kind: str, backend_name: str, own: Any) -> None:
    wanted = ask.kernel_traits(case, dialect).target
    asked = (wanted.get("kind") if isinstance(wanted, dict) else str(wanted).split()[0]) if wanted else None
    if asked not in (None, "auto", kind):
        raise CompileError(f"the kernel asks for target {wanted!r}; the {backend_name} backend builds for {own}")


def out_idx(case: Any, dialect: str) -> list[int] | None:
    indices = ask.kernel_traits(case, dialect).out_idx
    return list(indices) if indices else None
