"""The pipelined loop's form, a config axis any kernel may sweep: ``auto`` is
``T.Pipelined(n, num_stages=N)``, ``manual`` a hand-written stage/order (depth 2), ``serial`` ``T.serial(n)``.

Contract: ``check(loop_form, num_stages)`` raises ValueError for a form/stage pair that cannot be built; ``loop_id``
is the form's part of a case id (a history key: ``auto-s3``, ``manual``, ``serial``); ``pipeline_depth`` is the
buffer versions the loop asks for (num_stages, where 0 and 1 mean one; manual 2; serial 1).  ``LoopFormConfig``
gives a config dataclass with ``loop_form`` and ``num_stages`` fields the checked ``__post_init__`` and the
``loop_id`` / ``pipeline_depth`` properties.
"""

from __future__ import annotations

from typing import Literal

LoopForm = Literal["auto", "manual", "serial"]


def check(loop_form: str, num_stages: int | None) -> None:
    if loop_form not in ("auto", "manual", "serial"):
        raise ValueError(f"loop_form must be auto, manual or serial, got {loop_form!r}")
    if loop_form == "auto" and (num_stages is None or num_stages < 0):
        raise ValueError("loop_form='auto' needs num_stages >= 0")
    if loop_form != "auto" and num_stages is not None:
        raise ValueError(f"loop_form={loop_form!r} takes no num_stages (got {num_stages})")


def loop_id(loop_form: str, num_stages: int | None) -> str:
    return f"auto-s{num_stages}" if loop_form == "auto" else loop_form


def pipeline_depth(loop_form: str, num_stages: int | None) -> int:
    if loop_form == "manual":
        return 2
    if loop_form == "serial":
        return 1
    return max(1, int(num_stages or 0))


class LoopFormConfig:
    """Mixin for a kernel family's config dataclass that has ``loop_form`` and ``num_stages`` fields (declared by
    the dataclass itself, with its own defaults)."""

    loop_form: str
    num_stages: int | None

    def __post_init__(self) -> None:
        check(self.loop_form, self.num_stages)

    @property
    def loop_id(self) -> str:
        return loop_id(self.loop_form, self.num_stages)

    @property
    def pipeline_depth(self) -> int:
        """Buffer versions the loop asks for: num_stages (0 and 1 mean one), manual: 2."""
        return pipeline_depth(self.loop_form, self.num_stages)
