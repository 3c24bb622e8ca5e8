"""Where the conformance suites take tilelang's examples from: our rewrites, or upstream's files.

Contract: ``example(path)`` returns the module of tilelang example ``path`` (as it lies under
tilelang's ``examples/`` folder, e.g. ``"topk/example_topk.py"``):
- by default, the rewrite bundled here (``tilelang_examples/<path>``): our own code, with the
  public functions of the upstream file (same names, same arguments, same algorithm), so a
  suite written against one runs against the other;
- where the environment variable ``TLBENCH_TILELANG_EXAMPLES`` names a tilelang checkout (or
  its ``examples`` folder), the upstream file ``<that>/<path>`` itself, unchanged.  A file
  missing there is a ``FileNotFoundError`` naming the variable and the path, never a silent
  fall back to the rewrite.
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

ENV = "TLBENCH_TILELANG_EXAMPLES"
BUNDLED = Path(__file__).resolve().parent / "tilelang_examples"


def upstream_root() -> Path | None:
    """The tilelang checkout (or examples folder) the environment names, or None: the rewrites."""
    named = os.environ.get(ENV, "").strip()
    return Path(named).expanduser() if named else None


def source(path: str) -> Path:
    """The file ``example(path)`` imports."""
    root = upstream_root()
    if root is None:
        return BUNDLED / path
    for candidate in (root / path, root / "examples" / path):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{ENV}={root}: neither {root / path} nor {root / 'examples' / path} exists (point it "
                            "at a tilelang checkout or its examples folder, or unset it to use the bundled rewrites)")


def example(path: str) -> ModuleType:
    """The module of tilelang example ``path`` (see the contract)."""
    file = source(path)
    origin = "upstream" if upstream_root() is not None else "bundled"
    name = f"tlbench_conformance_{origin}_" + re.sub(r"\W", "_", path.removesuffix(".py"))
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "")) == file:
        return loaded
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
