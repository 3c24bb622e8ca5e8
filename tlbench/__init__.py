"""tlbench: a cross-backend benchmark harness for TileLang ``T.Pipelined`` kernels.

Contract: the installed package is ``tlbench``; the harness lives in ``tlbench.harness`` and
the backends and kernel families in ``tlbench.backends``.  In the source tree this folder holds
two relative links, ``harness -> ../harness`` and ``backends -> ../backends``, so a checkout on
``PYTHONPATH`` imports as installed and every ``tlbench.*`` name is a file by path.  Importing
this package imports nothing else.  ``__version__`` is the installed distribution's version
(``0+source`` for a checkout that is not installed).
"""

from __future__ import annotations


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tlbench")
    except PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
        return "0+source"


__version__ = _version()
