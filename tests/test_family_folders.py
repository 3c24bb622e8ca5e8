"""A kernel family is one folder under suites/ plus at most one registration.

Read from the syntax tree of every module (tests/import_graph.py, lazy imports included): no
module of harness/ or backends/ (the campaign tools in backends/tools/ aside: they sit above
every family) and no other family imports a family's modules, and pyproject.toml names a family
in at most one entry point (the reader of its older records, for the two families that wrote
records before kernel_sweep).  So adding a family touches its own folder and, at most, that line.
"""

from pathlib import Path

import pytest

from import_graph import graph, modules

ROOT = Path(__file__).resolve().parents[1]
KNOWN = modules(ROOT, ("harness", "backends", "suites"))
GRAPH = graph(KNOWN)
FAMILIES = sorted(p.parent.name for p in (ROOT / "suites").glob("*/__init__.py"))


def test_the_families_are_the_folders_with_a_package():
    assert {"gemm", "flash_attention", "gemv", "rmsnorm", "softmax", "blocksparse"} <= set(FAMILIES)
    assert "conformance" not in FAMILIES  # upstream examples as a user's suites, not a family of ours


@pytest.mark.parametrize("family", FAMILIES)
def test_nothing_outside_a_family_imports_it(family):
    inside = f"tlbench.suites.{family}"
    importers = sorted(name for name, edges in GRAPH.items()
                       if not (name == inside or name.startswith(inside + ".") or name.startswith("tlbench.backends.tools"))
                       and any(e == inside or e.startswith(inside + ".") for e in edges))
    assert importers == []
    assert any(name.startswith(inside + ".") for name in KNOWN)  # the graph did read the family


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_is_registered_at_most_once(family):
    lines = [line for line in (ROOT / "pyproject.toml").read_text().splitlines()
             if f"tlbench.suites.{family}." in line and "=" in line]
    assert len(lines) <= 1, lines
