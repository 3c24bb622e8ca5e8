"""NVIDIA backend package; ``NvidiaBackend`` is the ``tlbench.backends`` entry point.

The backend class is imported on first access, so ``backends.nvidia.traits`` and
``backends.nvidia.limits`` load without tilelang.
"""

__all__ = ["NvidiaBackend"]


def __getattr__(name):
    if name == "NvidiaBackend":
        from .backend import NvidiaBackend

        return NvidiaBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
