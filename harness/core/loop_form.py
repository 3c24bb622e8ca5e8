"""The pipelined loop's form, a config axis any kernel may sweep: ``auto`` is
``T.Pipelined(n, num_stages=N)``, ``manual`` a hand-written stage/order (depth 2), ``serial`` ``T.serial(n)``.

Contract: ``check(loop_form, num_stages)`` raises ValueError for a pair that cannot be built; ``loop_id`` is the
form's part of a case id (``auto-s3``, ``manual``, ``serial``); ``pipeline_depth`` the buffer versions it asks for.
``LoopFormConfig`` is a config mixin checking both in ``__post_init__``.
"""

from __future__ import annotations


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
    return {"manual": 2, "serial": 1}.get(loop_form) or max(1, int(num_stages or 0))


class LoopFormConfig:
    """Mixin for a config dataclass declaring ``loop_form`` and ``num_stages`` fields."""

    loop_form: str
    num_stages: int | None

    def __post_init__(self) -> None:
        check(self.loop_form, self.num_stages)

    @property
    def loop_id(self) -> str:
        return loop_id(self.loop_form, self.num_stages)

    @property
    def pipeline_depth(self) -> int:
        return pipeline_depth(self.loop_form, self.num_stages)
