"""Which NVIDIA device timer an item is timed with (``--tlbench-nvidia-timer``).

Contract: ``timer_name(value)`` returns the choice of ``TIMERS`` (default ``cupti``) or raises a
``ValueError`` naming the option and the valid values; ``make_timer(name, fn, flush, telemetry)``
builds it.  Importing this module imports neither torch nor tilelang.
"""

from __future__ import annotations

from typing import Any, Callable

TIMERS = ("cupti", "events", "graph")
DEFAULT_TIMER = "cupti"
OPTION = "--tlbench-nvidia-timer"


def timer_name(value: str | None) -> str:
    """The timer ``value`` names (None or empty: the default)."""
    if not value:
        return DEFAULT_TIMER
    if value not in TIMERS:
        raise ValueError(f"{OPTION} wants one of {', '.join(TIMERS)}, got {value!r}")
    return value


def make_timer(name: str, fn: Callable[[], None], flush: Any, telemetry: Any = None) -> Any:
    """The ``DeviceTimer`` ``name`` (one of ``TIMERS``) for the call ``fn``."""
    if name == "graph":
        from ..gpu.graph_timer import GraphTimer

        return GraphTimer(fn, flush, telemetry)
    from ..gpu.timing import CudaTimer

    return CudaTimer(fn, flush, telemetry, use_cupti=timer_name(name) == "cupti")
