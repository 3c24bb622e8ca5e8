"""tlbench: a cross-backend benchmark harness for TileLang ``T.Pipelined`` kernels.

Contract: the installed package is ``tlbench``; the harness lives in ``tlbench.harness`` and
the backends and kernel families in ``tlbench.backends`` (the source tree keeps them in its
top-level ``harness/`` and ``backends/`` folders; pyproject.toml maps them).  Importing this
package imports nothing else.  ``__version__`` is the installed distribution's version.
"""

from __future__ import annotations


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tlbench")
    except PackageNotFoundError:  # a source tree linked onto sys.path, not installed
        return "0+source"


__version__ = _version()
