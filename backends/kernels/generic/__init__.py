"""Benchmark your own kernel: a suite names a kernel by its factory and gets the whole harness.

``kernel_sweep(name, body, sizes=..., axes=..., inputs=..., reference=...)`` returns the
``SWEEP`` a suite declares (see backends/kernels/generic/sweep.py for every argument); the
kernel family behind it lives in backends/kernels/generic/family.py and needs no entry point.
Importing this package imports neither tilelang nor torch.
"""

from tlbench.backends.kernels.generic.sweep import kernel_sweep

__all__ = ["kernel_sweep"]
