"""harness/ stays backend- and family-neutral, read from the syntax tree of every module:

- it never imports tilelang, tvm, torch (torch.cuda included), torch_npu or the backends
  package (a lazy import inside a function is caught too);
- its code names no backend and no kernel family: no string literal outside docstrings
  holds a registered backend's or family's name as a word (comments are not code, and
  docstrings may explain).  The names are read from pyproject.toml's entry points, so a new
  backend is covered the day it is registered.
"""

import ast
import re
from pathlib import Path

import pytest

from tlbench.harness.core.entry_points import source_tree_group

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "harness"
MODULES = sorted(HARNESS.rglob("*.py"))
# The ``tlbench`` package itself (tlbench/__init__.py, beside harness/) is not the harness: its
# front door names backends.kernels.generic, imported on first use only (tests/test_front_door.py
# pins that ``import tlbench`` stays light).
HARNESS_MODULES = MODULES
FORBIDDEN = ("tilelang", "tvm", "tvm_ffi", "torch", "torch_npu", "backends")
NAMES = sorted({*source_tree_group("tlbench.backends"), *source_tree_group("tlbench.families")})


def imported_modules(source: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names.append(node.args[0].value)
    return names


def _package(name: str) -> str:
    """The top package of an import, ``tlbench.backends.x`` counting as ``backends``."""
    parts = name.split(".")
    return parts[1] if parts[0] == "tlbench" and len(parts) > 1 else parts[0]


def offending(source: str) -> list[str]:
    return [n for n in imported_modules(source) if _package(n) in FORBIDDEN]


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                ids.add(id(first.value))
    return ids


def named_in_code(source: str, names=NAMES) -> list[str]:
    """String literals (f-string parts included, docstrings excluded) naming one of ``names``."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9])", re.IGNORECASE)
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if pattern.search(node.value):
                hits.append(f"line {node.lineno}: {node.value!r}")
    return hits


def test_the_names_come_from_the_entry_points():
    assert {"nvidia", "ascend", "gemm"} <= set(NAMES)


@pytest.mark.parametrize("path", HARNESS_MODULES, ids=lambda p: str(p.relative_to(HARNESS)))
def test_harness_module_imports_no_backend_code(path):
    assert offending(path.read_text()) == [], f"{path.name} imports backend-only modules"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(HARNESS)))
def test_harness_code_names_no_backend_or_family(path):
    assert named_in_code(path.read_text()) == [], f"{path.relative_to(ROOT)} names a backend or kernel family in code"


@pytest.mark.parametrize(
    "snippet",
    ["import torch.cuda", "from torch_npu import npu", "def f():\n    import tilelang\n", "from tlbench.backends.nvidia import X", "import_module('tvm')"],
)
def test_the_scanner_catches_each_kind_of_import(snippet):
    assert offending(snippet), snippet


@pytest.mark.parametrize(
    "snippet",
    ['if backend == "nvidia":\n    pass\n', "COLOR = {'ascend': 'red'}\n", 'x = f"--{name}-nvidia-arch"\n',
     'def f():\n    """doc"""\n    return "GEMM only"\n'],
)
def test_the_scanner_catches_a_name_in_code(snippet):
    assert named_in_code(snippet), snippet


@pytest.mark.parametrize(
    "snippet",
    ['"""Explains the nvidia and ascend paths."""\n', "x = 1  # ascend: a comment\n", 'x = "nvidias_only_as_a_word_part"\n',
     'class C:\n    """The gemm family is documented here."""\n'],
)
def test_docstrings_and_comments_may_explain(snippet):
    assert named_in_code(snippet) == [], snippet


# -- layers: every import points one way ----------------------------------------------------------

LAYERS = ("core", "measure", "results", "analysis", "search", "pytest_plugin")  # lowest first; anything else is a front door


def layer_of(module: str) -> int | None:
    """Rank of a harness module's layer (front doors - plugin, cli, commands, dashboard,
    bootstrap - rank above every layer); None outside harness."""
    parts = module.split(".")
    parts = parts[1:] if parts[0] == "tlbench" else parts
    if not parts or parts[0] != "harness":
        return None
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else len(LAYERS)


def upward_imports(module: str, source: str) -> list[str]:
    """Imports of ``module`` that reach a higher layer than its own."""
    mine = layer_of(module)
    names = [n for n in imported_modules(source) if n.startswith("tlbench.harness.")]
    packages = ("tlbench.harness", *(f"tlbench.harness.{layer}" for layer in LAYERS))
    for node in ast.walk(ast.parse(source)):  # "from tlbench.harness import x" names its module x
        if isinstance(node, ast.ImportFrom) and node.module in packages:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return [n for n in names if mine is not None and (layer_of(n) or 0) > mine]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return "tlbench." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(HARNESS)))
def test_imports_point_down_the_layers(path):
    """core < measure < results < analysis < search < pytest_plugin < front doors."""
    assert upward_imports(_module_name(path), path.read_text()) == []


@pytest.mark.parametrize(
    "module, snippet",
    [("tlbench.harness.core.record", "from tlbench.harness.measure.stats import summarize"),
     ("tlbench.harness.core.sweep", "from tlbench.harness.results.export.best_configs import load_best"),
     ("tlbench.harness.results.files.store", "from tlbench.harness.analysis import stage_report"),
     ("tlbench.harness.analysis.stage_text", "def f():\n    from tlbench.harness.pytest_plugin import xdist_support\n"),
     ("tlbench.harness.measure.runner", "from tlbench.harness import plugin")],
)
def test_the_layer_check_catches_an_upward_import(module, snippet):
    assert upward_imports(module, snippet), snippet


def test_a_front_door_may_import_every_layer():
    assert upward_imports("tlbench.harness.cli", "from tlbench.harness.pytest_plugin import xdist_support\nfrom tlbench.harness import plugin") == []
