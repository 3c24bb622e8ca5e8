"""Which NVIDIA device timer an item is timed with (``--tlbench-nvidia-timer``).

Contract: ``TIMERS`` are the choices, ``DEFAULT_TIMER`` (``cupti``) is used when the option is
not given; ``timer_name(value)`` returns the choice or raises a ``ValueError`` naming the
option and the valid values; ``make_timer(name, fn, flush, telemetry)`` builds it:
- ``cupti``: the GPU's own kernel start/end timestamps (CUPTI activity records), flush
  kernels excluded (backends/gpu/timing.py; falls back to events, saying why);
- ``events``: a CUDA event pair around each call, launch gaps and host-side launch cost inside;
- ``graph``: K launches captured in one CUDA graph, replay time / K (backends/gpu/graph_timer.py).
Every one runs each call after the same L2 flush, and writes its name in each record's
``method``; how that flush empties L2 is backends/gpu/flush_choice.py.  Importing this
module imports neither torch nor tilelang (traits read ``TIMERS``).
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
