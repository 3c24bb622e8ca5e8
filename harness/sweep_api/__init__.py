"""Benchmark your own kernel: ``kernel_sweep(...)`` returns the ``SWEEP`` a suite declares (its
docstring is the reference for every argument); ``tolerance``, ``steps``, ``similarity``,
``mismatch``, ``exact`` and ``bound`` are the rules ``check=`` takes; ``pruned`` is what
``validate=`` returns for a predicted compiler refusal.  Users import them from the package root
(``from tlbench import kernel_sweep``).  Importing this imports neither tilelang nor torch.
"""

from .rules import bound, exact, mismatch, similarity, steps, tolerance
from .sweep import kernel_sweep, pruned

__all__ = ["kernel_sweep", "tolerance", "steps", "similarity", "mismatch", "exact", "bound", "pruned"]
