"""Ascend backend package; ``AscendBackend`` is the ``tlbench.backends`` entry point.

The backend class is imported on first access, so ``backends.ascend.traits`` and
``backends.ascend.limits`` load without tilelang.
"""

__all__ = ["AscendBackend"]


def __getattr__(name):
    if name == "AscendBackend":
        from .backend import AscendBackend

        return AscendBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
