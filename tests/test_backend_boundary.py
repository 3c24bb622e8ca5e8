"""backends/ keeps its backends, the layer they share and its kernel families apart, read from the
syntax tree of every module (tests/import_graph.py: lazy imports included):

- the backend packages are the ones pyproject.toml's ``tlbench.backends`` and ``tlbench.traits``
  entry points name, so a backend registered tomorrow is covered without editing this file;
- no module of a backend package imports a kernel family (a module under backends/kernels/):
  a backend asks the family through harness/core/kernel_traits.py and the family protocol;
- no backend package imports another backend package;
- no kernel family imports a backend package or the shared layer: a family gets what it needs
  (the dialect, the on-chip scopes) from the backend that calls it;
- the shared modules (backends/gpu/ and the modules at the top of backends/) import no backend
  package and no family: a second GPU backend uses them without importing the first;
- the campaign tools (backends/tools/) sit above every backend and family, as a front door does:
  they may import any of them, and no other module of backends/ or harness/ imports a tool.
(No import cycle anywhere: tests/test_import_cycles.py.)
"""

import pytest

from import_graph import graph, modules
from tlbench.harness.core.entry_points import source_tree_group

PREFIX = "tlbench.backends"
FAMILIES = f"{PREFIX}.kernels"
KNOWN = {name: path for name, path in modules().items() if name.startswith(PREFIX)}
GRAPH = graph(modules())


def _backend_package(ref: str) -> str | None:
    """``tlbench.backends.<name>`` of an entry point's ``module:attribute`` (None: elsewhere)."""
    parts = ref.partition(":")[0].strip().split(".")
    return ".".join(parts[:3]) if parts[:2] == PREFIX.split(".") and len(parts) > 2 else None


BACKEND_PACKAGES = sorted({p for group in ("tlbench.backends", "tlbench.traits")
                           for p in map(_backend_package, source_tree_group(group).values()) if p})


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _package_of(name: str) -> str | None:
    return next((p for p in BACKEND_PACKAGES if _inside(name, p)), None)


BACKEND_MODULES = sorted(n for n in KNOWN if _package_of(n))
FAMILY_MODULES = sorted(n for n in KNOWN if _inside(n, FAMILIES))
TOOLS = f"{PREFIX}.tools"
TOOL_MODULES = sorted(n for n in KNOWN if _inside(n, TOOLS))
SHARED_MODULES = sorted(n for n in KNOWN if n not in BACKEND_MODULES and n not in FAMILY_MODULES and n not in TOOL_MODULES)


def test_the_backend_packages_come_from_the_entry_points():
    assert len(BACKEND_PACKAGES) >= 2 and all(p in KNOWN for p in BACKEND_PACKAGES)
    assert f"{PREFIX}.gpu" not in BACKEND_PACKAGES and f"{PREFIX}.gpu.timing" in SHARED_MODULES
    assert _backend_package("tlbench.backends.mine.backend:Mine") == "tlbench.backends.mine"
    assert _backend_package("elsewhere.backend:Mine") is None


def test_the_graph_sees_the_known_edges():
    """The reader is not blind: the NVIDIA backend module imports its limits, lazily the plan reader."""
    edges = GRAPH[f"{PREFIX}.nvidia.backend"]
    assert {f"{PREFIX}.nvidia.limits", f"{PREFIX}.gpu.plan"} <= edges


@pytest.mark.parametrize("name", BACKEND_MODULES)
def test_a_backend_imports_no_family_and_no_other_backend(name):
    families = sorted(t for t in GRAPH[name] if _inside(t, FAMILIES))
    assert families == [], f"{name} imports kernel-family module(s) {families}: ask the family through harness/core/kernel_traits.py"
    others = sorted(t for t in GRAPH[name] if _package_of(t) not in (None, _package_of(name)))
    assert others == [], f"{name} imports another backend's module(s) {others}: share them through backends/gpu/ or the top of backends/"


@pytest.mark.parametrize("name", FAMILY_MODULES)
def test_a_family_imports_no_backend(name):
    # the top of backends/ (dtype sizes, output poison, symbolic shapes: backend-neutral helpers
    # that import no backend) is the families' to use; a backend package or a device layer
    # such as backends/gpu/ is not
    reached = sorted(t for t in GRAPH[name] if _package_of(t) or (t in SHARED_MODULES and t.count(".") > 2))
    assert reached == [], \
        f"{name} imports backend module(s) {reached}: take the dialect and scopes from the backend that calls the family"


@pytest.mark.parametrize("name", SHARED_MODULES)
def test_the_shared_layer_imports_no_backend_and_no_family(name):
    reached = sorted(t for t in GRAPH[name] if _package_of(t) or _inside(t, FAMILIES))
    assert reached == [], f"{name} imports {reached}: a second backend must be able to use it alone"


def test_the_tools_are_seen_and_nothing_below_them_imports_one():
    assert f"{TOOLS}.timer_crosscheck" in TOOL_MODULES
    importers = sorted(f"{name} -> {t}" for name, targets in GRAPH.items() if not _inside(name, TOOLS)
                       for t in targets if _inside(t, TOOLS))
    assert importers == [], f"product modules import a campaign tool: {importers}"
