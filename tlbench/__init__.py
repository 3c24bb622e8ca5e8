"""tlbench: a cross-backend benchmark harness for TileLang ``T.Pipelined`` kernels.

Benchmark your own kernel (the front door; each imported on first use, so ``import tlbench``
imports neither torch nor tilelang and sets no environment variable)::

    from tlbench import kernel_sweep, tolerance, steps, similarity, mismatch, exact, bound, pruned

``kernel_sweep``'s docstring is the reference for every argument (``help(tlbench.kernel_sweep)``);
the rules are what its ``check=`` takes, ``pruned`` what its ``validate=`` returns for a
predicted compiler refusal.

Contract: the installed package is ``tlbench``; the harness lives in ``tlbench.harness`` and
the backends and kernel families in ``tlbench.backends``.  In the source tree this folder holds
two relative links, ``harness -> ../harness`` and ``backends -> ../backends``, so a checkout on
``PYTHONPATH`` imports as installed and every ``tlbench.*`` name is a file by path.  Importing
this package imports nothing else; the front-door names load ``tlbench.harness.sweep_api``
when first asked for.  ``__version__`` is the installed distribution's version (``0+source``
for a checkout that is not installed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what editors and type checkers read: the front door's own signatures and docstrings
    from .harness.sweep_api import bound, exact, kernel_sweep, mismatch, pruned, similarity, steps, tolerance

FRONT_DOOR = ("kernel_sweep", "tolerance", "steps", "similarity", "mismatch", "exact", "bound", "pruned")
__all__ = ["__version__", *FRONT_DOOR]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tlbench")
    except PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
        return "0+source"


def __getattr__(name: str):
    if name in FRONT_DOOR:
        from .harness import sweep_api

        return getattr(sweep_api, name)
    raise AttributeError(f"module 'tlbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *FRONT_DOOR})


__version__ = _version()
