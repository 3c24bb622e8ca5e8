"""Benchmark your own kernel: a suite names a kernel by its body and gets the whole harness.

``kernel_sweep(name, body, sizes=..., axes=..., inputs=..., reference=...)`` returns the
``SWEEP`` a suite declares (its docstring is the reference for every argument); ``tolerance``,
``steps``, ``similarity``, ``mismatch``, ``exact`` and ``bound`` are the rules its ``check=`` takes;
``pruned`` is what its ``validate=`` returns for a predicted compiler refusal.  The kernel
family behind it (family.py) needs no entry point; what traces, runs and judges with tilelang
and torch is the runtime's (runtime.py: backends/kernels/generic/).  Users import these from
the package root: ``from tlbench import kernel_sweep, steps``.  Importing this package imports
neither tilelang nor torch, and sets no environment variable.
"""

from .rules import bound, exact, mismatch, similarity, steps, tolerance
from .sweep import kernel_sweep, pruned

__all__ = ["kernel_sweep", "tolerance", "steps", "similarity", "mismatch", "exact", "bound", "pruned"]
