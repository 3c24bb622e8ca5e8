"""Ascend backend package; ``AscendBackend`` (imported on first access) is the entry point."""

__all__ = ["AscendBackend"]


def __getattr__(name):
    if name == "AscendBackend":
        from .backend import AscendBackend

        return AscendBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
