"""NVIDIA backend package; ``NvidiaBackend`` (imported on first access) is the entry point."""

__all__ = ["NvidiaBackend"]


def __getattr__(name):
    if name == "NvidiaBackend":
        from .backend import NvidiaBackend

        return NvidiaBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
