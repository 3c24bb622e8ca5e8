"""Finding a suite's callables and its kernel family again, in any process, from any thread.

Contract: ``resolve(ref, near)`` returns a callable as given, or the one a ``"module:attribute"``
names (loaded from the file beside ``near`` where it does not import by name); ``find_family``
returns the family a suite declares in a ``SWEEP`` (how a worker unpickles one).  Modules are
exec'd under one process-wide lock (a compile thread must never see another's half-executed
module); a failed exec is undone.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import threading
from pathlib import Path
from typing import Any

_MODULE_LOADING = threading.RLock()  # held while a module is looked up or exec'd from its file (reentrant: a suite's exec resolves)


def resolve(ref: Any, near: str = "") -> Any:
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    if not module or not attr:
        raise ValueError(f"{ref!r}: name a callable as 'module:attribute'")
    return functools.reduce(getattr, attr.split("."), _import_near(module, near))


def _import_near(module: str, near: str) -> Any:
    with _MODULE_LOADING:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as missing:
            sibling = Path(near).parent / (module.replace(".", "/") + ".py") if near else None
            if missing.name != module.split(".")[0] or sibling is None or not sibling.is_file():
                raise
        return _exec_file(module, sibling)


def _exec_file(module: str, path: Any) -> Any:
    """``module`` loaded from ``path`` (the caller holds ``_MODULE_LOADING``), or as already loaded."""
    if module in sys.modules:
        return sys.modules[module]
    spec = importlib.util.spec_from_file_location(module, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{module}: cannot load {path}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded  # before exec, as an import does (dataclasses and pickle look it up)
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        sys.modules.pop(module, None)
        raise
    return loaded


def find_family(module: str, module_file: str, name: str) -> Any:
    """The family ``name`` declared by suite ``module`` (imported here if it is not yet; from
    ``module_file`` where the name alone does not import)."""
    with _MODULE_LOADING:
        loaded = sys.modules.get(module)
        if loaded is None:
            try:
                loaded = importlib.import_module(module)
            except ImportError:
                loaded = _exec_file(module, module_file)
    for value in list(vars(loaded).values()):
        for problem in getattr(value, "problems", ()) or ():
            family = getattr(problem, "family", None)
            if getattr(family, "name", None) == name and hasattr(family, "bodies") and hasattr(family, "preflight"):
                return family
    raise LookupError(f"suite module {module} ({module_file}) declares no kernel {name!r} in a SWEEP")
