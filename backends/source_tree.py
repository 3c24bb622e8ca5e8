"""The hash of the code a backend's runtime compiles with, for caches that must never outlive a
change to it.

Contract: ``runtime_tree_hash(module)`` is ``sha256:<hex>`` over the relative paths and contents
of ``runtime_files`` (read once per process): the backend runtime's module, every
``tlbench.backends`` module it imports transitively, and ``kernel_sweep``'s family, which builds
every kernel without being imported.  Found from this file's location.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

ROOT = Path(__file__).resolve().parent  # backends/ (tlbench.backends)
PACKAGE = "tlbench.backends"
BUILDING_FAMILY = ("kernels", "generic")  # backends/kernels/generic/: the family every kernel is built through
DECLARING_FAMILY = ("harness", "sweep_api")  # its declaration half, beside backends/ (tlbench.harness.sweep_api)


def module_path(name: str, root: Path = ROOT) -> Path | None:
    """The file of ``tlbench.backends.<...>`` module ``name`` under ``root`` (None: not in it)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    base = root.joinpath(*name.split(".")[2:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join([PACKAGE, *(parts[:-1] if parts[-1] == "__init__" else parts)])


def imported_names(source: str, importer: str, is_package: bool) -> set[str]:
    """Dotted names a module's source imports, anywhere in it (``from pkg import name`` gives
    both ``pkg`` and ``pkg.name``; the caller keeps those that are modules)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = importer.split(".") if is_package else importer.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names.add(node.args[0].value)
    return names


def _with_packages(name: str) -> list[str]:
    """``a.b.c`` -> ``a.b``, ``a.b.c``: importing a module runs its packages' ``__init__`` first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts) + 1)]


def runtime_files(start: Path, root: Path = ROOT) -> list[Path]:
    """``start`` and every file under ``root`` it reaches through imports, plus the building family's."""
    found: set[Path] = {start}
    todo = [start]
    while todo:
        path = todo.pop()
        inside = path.is_relative_to(root)
        importer = _module_name(path, root) if inside else path.stem
        for name in imported_names(path.read_text(encoding="utf-8"), importer, path.name == "__init__.py"):
            for module in _with_packages(name):
                target = module_path(module, root)
                if target is not None and target not in found:
                    found.add(target)
                    todo.append(target)
    found |= set(root.joinpath(*BUILDING_FAMILY).rglob("*.py"))
    found |= {p for p in [root / BUILDING_FAMILY[0] / "__init__.py"] if p.is_file()}
    found |= set(root.parent.joinpath(*DECLARING_FAMILY).rglob("*.py"))
    return sorted(found)


def tree_hash(files: list[Path], root: Path = ROOT) -> str:
    digest = hashlib.sha256()
    for path in files:
        label = (path.relative_to(root) if path.is_relative_to(root) else
                 Path("..", path.relative_to(root.parent)) if path.is_relative_to(root.parent) else Path(path.name))
        digest.update(str(label).encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


@lru_cache(maxsize=None)
def runtime_tree_hash(module: str) -> str:
    """The hash of what module ``module`` (a backend's runtime) compiles with (see above)."""
    loaded = sys.modules.get(module)
    origin = getattr(loaded, "__file__", None)
    if origin is None:
        spec = find_spec(module)
        origin = spec.origin if spec is not None else None
    if not origin:
        raise ModuleNotFoundError(f"no source file for backend runtime module {module!r}")
    return tree_hash(runtime_files(Path(origin).resolve()))
