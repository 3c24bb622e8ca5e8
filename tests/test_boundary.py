"""harness/ stays backend-neutral: it never imports tilelang, tvm, torch (torch.cuda included),
torch_npu or the backends package.  Read from the syntax tree, so a lazy import inside a
function is caught too."""

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "harness"
FORBIDDEN = ("tilelang", "tvm", "tvm_ffi", "torch", "torch_npu", "backends")


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


def offending(source: str) -> list[str]:
    return [n for n in imported_modules(source) if n.split(".")[0] in FORBIDDEN]


@pytest.mark.parametrize("path", sorted(HARNESS.glob("*.py")), ids=lambda p: p.name)
def test_harness_module_imports_no_backend_code(path):
    assert offending(path.read_text()) == [], f"{path.name} imports backend-only modules"


@pytest.mark.parametrize(
    "snippet",
    ["import torch.cuda", "from torch_npu import npu", "def f():\n    import tilelang\n", "from backends.nvidia import X", "import_module('tvm')"],
)
def test_the_scanner_catches_each_kind_of_import(snippet):
    assert offending(snippet), snippet
