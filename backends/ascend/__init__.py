"""Ascend backend package; ``AscendBackend`` is the ``tlbench.backends`` entry point."""

from backends.ascend.backend import AscendBackend

__all__ = ["AscendBackend"]
