"""results/ holds data, READMEs, suites and shell scripts: its Python uses tlbench's public API only.

Read from the syntax tree of every ``.py`` file under results/: no import (lazy ones inside a
function, ``import_module("...")`` and ``__import__("...")`` calls included) names a module under
``tlbench.harness`` or ``tlbench.backends``, or any other ``tlbench.<x>`` module, and no
``from tlbench import name`` takes a name with a leading underscore.  The public API is what
``tlbench/__init__.py`` exports (``from tlbench import kernel_sweep, ...``) and the ``tlbench``
command; a reusable tool lives in the package (harness/tools/, backends/tools/), called from a
shell script here as ``python -m tlbench.<...>.tools.<name>``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
SCRIPTS = sorted(RESULTS.rglob("*.py"))


def _private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def private_imports(source: str) -> list[str]:
    """Each import of ``source`` that reaches past tlbench's public API, as ``line N: what``."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        names: list[tuple[str, list[str]]] = []
        if isinstance(node, ast.Import):
            names = [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [(node.module, [alias.name for alias in node.names])]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names = [(node.args[0].value, [])]
        for module, taken in names:
            parts = module.split(".")
            if parts[0] != "tlbench":
                continue
            if len(parts) > 1 and parts[1] != "suites":  # tlbench.harness..., tlbench.backends...; the shipped kernels (tlbench.suites) are public
                hits.append(f"line {node.lineno}: {module}")
            hits += [f"line {node.lineno}: tlbench.{name}" for name in taken if _private(name)]
    return hits


def test_results_holds_python_files_to_check():
    assert SCRIPTS, "results/ has no .py file: the check below would pass vacuously"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(RESULTS)))
def test_results_python_uses_the_public_api_only(path):
    assert private_imports(path.read_text()) == [], f"{path.relative_to(ROOT)} imports tlbench internals"


@pytest.mark.parametrize(
    "snippet",
    ["from tlbench.harness.results.files.store import load_results", "import tlbench.backends.nvidia.backend",
     "def f():\n    from tlbench.backends.gpu.timing import L2Flush\n", "from tlbench import _version",
     "import_module('tlbench.harness.core.trace')", "from tlbench.harness import plugin"],
)
def test_the_scanner_catches_each_kind_of_private_import(snippet):
    assert private_imports(snippet), snippet


@pytest.mark.parametrize(
    "snippet",
    ["from tlbench import kernel_sweep, tolerance", "import tlbench", "import torch\nfrom kernel_fa_body import build",
     'x = "tlbench.harness.core"  # a string, not an import'],
)
def test_the_public_api_and_other_packages_pass(snippet):
    assert private_imports(snippet) == [], snippet
