"""The import graph of tlbench's own modules (harness/ and backends/), read from the syntax tree.

Contract (a helper of the tests, not a test): ``modules(root)`` maps each ``tlbench.*`` module
name to its file; ``imports_of(name, source, known)`` is the set of known modules that module
``name`` imports anywhere in its body:
- ``import a.b`` and ``from a.b import c`` (``a.b.c`` where that is a module, else ``a.b``),
  relative ones resolved against ``name``, and ``import_module("...")`` / ``__import__`` calls
  with a literal name; statements inside functions (lazy imports) count the same;
- importing ``a.b.c`` also runs the ``__init__`` of ``a`` and ``a.b``: those packages are edges
  too, except the importer's own packages (Python has run them before the importer);
- ``harness.x`` / ``backends.x`` name the same modules as ``tlbench.harness.x`` / ``tlbench.backends.x``.
``graph(known)`` is every module's edges; ``strongly_connected(graph)`` the import cycles: the
strongly connected components of more than one module, and any module that imports itself.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("harness", "backends")


def modules(root: Path = ROOT, tops: tuple[str, ...] = TOPS) -> dict[str, Path]:
    found = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            found[".".join(["tlbench", *(parts[:-1] if parts[-1] == "__init__" else parts)])] = path
    return found


def _packages_of(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(name: str, source: str, known: dict[str, Path]) -> set[str]:
    is_package = known.get(name, Path()).name == "__init__.py"
    own = set(_packages_of(name)) | ({name} if is_package else set())
    found: set[str] = set()

    def add(target: str) -> None:
        if target.split(".")[0] in TOPS:
            target = f"tlbench.{target}"
        if target not in known:
            return
        found.add(target)
        found.update(p for p in _packages_of(target) if p in known and p not in own)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                add(sub if sub in known else base)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                add(node.args[0].value)
    return found


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imports_of(name, path.read_text(encoding="utf-8"), known) for name, path in known.items()}


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, plus modules that import themselves."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(edges) + 100))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out
