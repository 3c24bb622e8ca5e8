"""backends/ keeps its families and its backends apart, read from the syntax tree of every module:

- no module of a backend package (backends/nvidia, backends/ascend) imports a kernel family
  (a module under backends/kernels/): a backend asks the family through
  harness/core/kernel_traits.py and the family protocol, never by its types;
- no import cycle anywhere under backends/: the import graph (every ``import`` and ``from``,
  relative ones resolved, lazy imports inside functions and ``import_module("...")`` calls
  included; ``from pkg import name`` counts as importing ``pkg.name`` where that is a module)
  has no strongly connected component of more than one module, and no module imports itself.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ROOT / "backends"
PREFIX = "tlbench.backends"
BACKEND_PACKAGES = ("nvidia", "ascend")
FAMILIES = f"{PREFIX}.kernels"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(BACKENDS).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PREFIX, *parts])


MODULES = {module_name(p): p for p in sorted(BACKENDS.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def _resolve_relative(importer: str, level: int, module: str | None) -> str:
    base = importer.split(".")
    if not _is_package(importer):
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *([module] if module else [])])


def imports_of(name: str, source: str) -> set[str]:
    """The modules under backends/ that module ``name`` imports (anywhere in its body)."""
    found: set[str] = set()

    def add(target: str) -> None:
        if target.startswith("backends.") or target == "backends":
            target = f"tlbench.{target}"
        if target in MODULES:
            found.add(target)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_relative(name, node.level, node.module) if node.level else (node.module or "")
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                add(sub if sub in MODULES else base)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                add(node.args[0].value)
    return found


GRAPH = {name: imports_of(name, path.read_text()) for name, path in MODULES.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, plus modules that import themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
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
            if len(component) > 1 or v in graph.get(v, ()):
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_the_known_edges():
    """The reader is not blind: the NVIDIA backend module imports its limits, lazily the plan reader."""
    edges = GRAPH[f"{PREFIX}.nvidia.backend"]
    assert {f"{PREFIX}.nvidia.limits", f"{PREFIX}.gpu.plan"} <= edges
    assert imports_of(f"{PREFIX}.nvidia.x", "def f():\n    from . import limits\n    from .traits import TRAITS\n") == {
        f"{PREFIX}.nvidia.limits", f"{PREFIX}.nvidia.traits"}


def test_the_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"a"}}) == [["a"]]


BACKEND_MODULES = sorted(n for n in MODULES if n.split(".")[2:3] and n.split(".")[2] in BACKEND_PACKAGES)


@pytest.mark.parametrize("name", BACKEND_MODULES)
def test_no_backend_module_imports_a_family(name):
    families = sorted(t for t in GRAPH[name] if t == FAMILIES or t.startswith(FAMILIES + "."))
    assert families == [], f"{name} imports kernel-family module(s) {families}: ask the family through harness/core/kernel_traits.py"


def test_no_import_cycle_under_backends():
    cycles = strongly_connected(GRAPH)
    assert cycles == [], "import cycles under backends/: " + "; ".join(" <-> ".join(c) for c in cycles)
