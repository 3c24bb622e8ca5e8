"""Where the conformance suites take tilelang's examples from: the user's tilelang checkout, unchanged.

Contract: ``example(path)`` returns the module of tilelang example ``path`` (as it lies under
tilelang's ``examples/`` folder, e.g. ``"topk/example_topk.py"``), imported from the checkout
(or its ``examples`` folder) that the environment variable ``TLBENCH_TILELANG_EXAMPLES`` names.
No upstream file ships with tlbench, so:
- without the variable, the calling suite is skipped (pytest's module-level skip) with one
  line that says how to get a checkout;
- a named folder that does not exist, or holds no ``examples`` folder and no example file at
  all, is a ``FileNotFoundError`` naming the variable (a mistyped path is never a silent skip);
- a checkout that lacks this one file (a tilelang version without it), or whose file does not
  import here (a package it needs, a tilelang name of another version), skips the suite, naming
  the file and the missing piece.
Each file is imported once per process under a name of its own (``tlbench_conformance_*``),
so it never clashes with a user's module; ``source(path)`` says which file that is.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ENV = "TLBENCH_TILELANG_EXAMPLES"
HOW = (f"set {ENV} to a tilelang checkout (git clone https://github.com/tile-ai/tilelang; its examples/ "
       "are read unchanged) to run the conformance suites")


def upstream_root() -> Path | None:
    """The tilelang checkout (or examples folder) the environment names, or None."""
    named = os.environ.get(ENV, "").strip()
    return Path(named).expanduser() if named else None


def source(path: str) -> Path:
    """The file ``example(path)`` imports (see the contract for what is raised and skipped)."""
    root = upstream_root()
    if root is None:
        pytest.skip(f"no tilelang examples: {HOW}", allow_module_level=True)
    if not root.is_dir() or not (root / "examples").is_dir() and not any(root.rglob("example*.py")):
        raise FileNotFoundError(f"{ENV}={root}: no tilelang checkout there (no examples/ folder and no example "
                                "file); point it at a tilelang checkout or its examples folder, or unset it")
    for candidate in (root / path, root / "examples" / path):
        if candidate.is_file():
            return candidate
    pytest.skip(f"{ENV}={root} has no examples/{path} (a tilelang version without it): use a checkout that has it",
                allow_module_level=True)


def example(path: str) -> ModuleType:
    """The module of tilelang example ``path`` (see the contract)."""
    file = source(path)
    name = "tlbench_conformance_" + re.sub(r"\W", "_", path.removesuffix(".py"))
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "")) == file:
        return loaded
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:  # a package the example needs, or a tilelang name of another version
        sys.modules.pop(name, None)
        pytest.skip(f"{file} does not import here ({type(exc).__name__}: {exc}): install what it needs, or use "
                    "a tilelang checkout that matches the installed tilelang", allow_module_level=True)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
