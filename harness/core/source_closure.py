"""The user source files a kernel body is made of: its modules plus the user modules they import.

Contract: ``source_closure(files)`` returns ``files`` then every ``.py`` they import, transitively,
that is user code (not the standard library, an installed distribution or tlbench), read from the
syntax tree; a name that cannot be found is skipped, and nothing is imported.
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from functools import lru_cache
from importlib.metadata import distributions
from importlib.util import find_spec
from pathlib import Path
from typing import Iterable

_PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # harness/ (tlbench.harness)


def _installed_elsewhere(folders: Iterable[str], skip: tuple[Path, ...]) -> set[Path]:
    """The top-level packages a ``.dist-info`` RECORD in one of ``folders`` (not under ``skip``) installs there."""
    roots: set[Path] = set()
    for folder in folders:
        base = Path(folder or ".").resolve()
        if not base.is_dir() or any(base.is_relative_to(root) for root in skip):
            continue
        tops = {entry.parts[0] for dist in distributions(path=[str(base)]) for entry in dist.files or () if entry.parts}
        for top in tops:  # a RECORD lists every file: each top-level name is resolved once
            if top.endswith((".dist-info", ".egg-info", ".data", ".pth")) or top.startswith(("__editable__", "..")):
                continue
            installed = (base / top).resolve()
            if installed.exists() and installed != base:
                roots.add(installed)
    return roots


@lru_cache(maxsize=1)
def _excluded_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    own = (_PACKAGE_ROOT, _PACKAGE_ROOT.parent / "backends")
    return (*roots, *own, *sorted(_installed_elsewhere(sys.path, (*roots, *own))))


def _is_user_file(path: Path, excluded: tuple[Path, ...]) -> bool:
    return path.suffix == ".py" and not any(path.is_relative_to(root) for root in excluded)


def _origin(name: str, excluded: tuple[Path, ...]) -> Path | None:
    """The file of module ``name``, or None; a dotted name only where its top-level package is user code."""
    if "." in name:
        top = _origin(name.split(".")[0], excluded)
        if top is None or not _is_user_file(top, excluded):
            return None
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else None
    if origin is None:
        try:
            spec = find_spec(name)
        except (ImportError, ValueError, AttributeError):
            return None
        origin = spec.origin if spec is not None else None
    return Path(origin).resolve() if origin and Path(origin).is_file() else None


def _relative(directory: Path, level: int, module: str | None) -> Path:
    base = directory
    for _ in range(level - 1):
        base = base.parent
    return base.joinpath(*module.split(".")) if module else base


def _as_file(path: Path) -> Path | None:
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


@lru_cache(maxsize=4096)  # a closure revisits every file on each kernel's hash: all of them stay parsed
def _imports(path: Path, mtime_ns: int, excluded: tuple[Path, ...]) -> tuple[Path, ...]:
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return ()
    found: list[Path | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [_origin(alias.name, excluded) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = _relative(path.parent, node.level, node.module)
            found.append(_as_file(base))
            found += [_as_file(base / alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            origin = _origin(node.module, excluded)
            found.append(origin)
            if origin is not None and origin.name == "__init__.py":  # ``from pkg import mod``: the submodule too
                found += [_as_file(origin.parent / alias.name) for alias in node.names]
    return tuple(p for p in found if p is not None)


def source_closure(files: Iterable[Path]) -> list[Path]:
    excluded = _excluded_roots()
    ordered = [Path(f).resolve() for f in files]
    seen = set(ordered)
    queue = [f for f in ordered if _is_user_file(f, excluded)]
    while queue:
        current = queue.pop(0)
        for imported in _imports(current, current.stat().st_mtime_ns, excluded):
            if imported not in seen and _is_user_file(imported, excluded):
                seen.add(imported)
                ordered.append(imported)
                queue.append(imported)
    return ordered
