"""Benchmark your own kernel: ``kernel_sweep(...)`` returns the ``SWEEP`` a suite declares (its
docstring is the reference for every argument), with the ``check=`` rules and ``pruned``; users
import them from the package root.  Importing this imports neither tilelang nor torch.
"""

from .rules import bound, exact, mismatch, similarity, steps, tolerance
from .sweep import kernel_sweep, pruned

__all__ = ["kernel_sweep", "tolerance", "steps", "similarity", "mismatch", "exact", "bound", "pruned"]
