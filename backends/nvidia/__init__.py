"""NVIDIA backend package; ``NvidiaBackend`` is the ``tlbench.backends`` entry point."""

from backends.nvidia.backend import NvidiaBackend

__all__ = ["NvidiaBackend"]
