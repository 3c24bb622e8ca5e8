"""No import cycle anywhere in harness/ and backends/, lazy imports included.

The graph is read from the syntax tree of every module (tests/import_graph.py): ``import`` and
``from`` statements wherever they stand (inside functions too), relative ones resolved,
``import_module("...")`` calls, and the package ``__init__`` each import runs.  A cycle hidden in a
function body still makes the modules' meaning depend on which one is imported first, so it
counts; the reader is checked on known edges and on synthetic cycles first.
"""

from import_graph import graph, imports_of, modules, strongly_connected

KNOWN = modules()
GRAPH = graph(KNOWN)


def test_the_reader_sees_lazy_relative_and_package_edges():
    assert "tlbench.backends.gpu.plan" in GRAPH["tlbench.backends.nvidia.backend"]  # imported inside a method
    assert "tlbench.harness.core.described" in GRAPH["tlbench.harness.core.family"]
    source = "def f():\n    from . import limits\n    from ..gpu.timing import L2Flush\n    import_module('harness.core.sweep')\n"
    edges = imports_of("tlbench.backends.nvidia.x", source, KNOWN)
    assert {"tlbench.backends.nvidia.limits", "tlbench.backends.gpu.timing", "tlbench.harness.core.sweep",
            "tlbench.backends.gpu", "tlbench.harness.core", "tlbench.harness"} <= edges
    assert "tlbench.backends.nvidia" not in edges  # its own package ran before it


def test_the_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"a"}}) == [["a"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_a_lazy_import_back_is_a_cycle():
    known = {"tlbench.harness.core.x": KNOWN["tlbench.harness.core.sweep"], "tlbench.harness.core.y": KNOWN["tlbench.harness.core.sweep"]}
    edges = {"tlbench.harness.core.x": imports_of("tlbench.harness.core.x", "from tlbench.harness.core.y import Y\n", known),
             "tlbench.harness.core.y": imports_of("tlbench.harness.core.y", "def f():\n    from . import x\n", known)}
    assert strongly_connected(edges) == [["tlbench.harness.core.x", "tlbench.harness.core.y"]]


def test_the_graph_covers_both_trees():
    tops = {name.split(".")[1] for name in KNOWN}
    assert tops == {"harness", "backends"} and len(KNOWN) > 150


def test_no_import_cycle_in_harness_and_backends():
    cycles = strongly_connected(GRAPH)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)
