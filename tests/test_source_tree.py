"""backends/source_tree.py: a backend's cache key covers what its runtime compiles with, and
nothing else under backends/.

- The NVIDIA runtime's files are its own modules, what they import under backends/ (the
  shared GPU layer, the build helpers; lazy imports included) and kernel_sweep's family; no
  Ascend module and no reader of older records.
- On a copy of backends/: editing the Ascend runtime or adding a stray script leaves the NVIDIA
  hash as it was, and so does editing a reader of older records (it builds nothing); editing the
  shared timer, a kernel_sweep helper or the backend itself changes it.
- A runtime subclass outside the package (the test-only NVIDIA backend) adds its own file and
  reaches the package through its imports.
"""

import shutil
from pathlib import Path

from tlbench.backends.source_tree import ROOT, imported_names, runtime_files, runtime_tree_hash, tree_hash

TESTS = Path(__file__).resolve().parent


def _relative(files, root=ROOT):
    return {str(f.relative_to(root)) for f in files if f.is_relative_to(root)}


def test_the_nvidia_runtime_is_its_imports_and_the_families():
    files = _relative(runtime_files(ROOT / "nvidia" / "backend.py"))
    assert {"__init__.py", "nvidia/__init__.py", "nvidia/backend.py", "nvidia/limits.py", "gpu/plan.py", "gpu/timing.py",
            "gpu/graph_timer.py", "backend_base.py", "kernel_call.py", "kernels/generic/factory.py", "kernels/generic/judges.py"} <= files
    assert not [f for f in files if f.startswith(("ascend/", "tools/"))]
    assert runtime_tree_hash("tlbench.backends.nvidia.backend") == tree_hash(runtime_files(ROOT / "nvidia" / "backend.py"))


def test_lazy_relative_and_named_imports_are_read():
    source = "def f():\n    from . import limits\n    from ..gpu.plan import lower_with_plan\n    import_module('tlbench.backends.kernel_call')\n"
    names = imported_names(source, "tlbench.backends.nvidia.backend", is_package=False)
    assert {"tlbench.backends.nvidia.limits", "tlbench.backends.gpu.plan", "tlbench.backends.kernel_call"} <= names


def _edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# edited\n")


def test_only_an_edit_the_runtime_compiles_with_changes_its_hash(tmp_path):
    copy = tmp_path / "backends"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT.parent / "harness" / "sweep_api", tmp_path / "harness" / "sweep_api",
                    ignore=shutil.ignore_patterns("__pycache__"))
    start = copy / "nvidia" / "backend.py"

    def nvidia_hash() -> str:
        return tree_hash(runtime_files(start, copy), copy)

    before = nvidia_hash()
    _edit(copy / "ascend" / "backend.py")
    (copy / "tools").mkdir(exist_ok=True)  # backends/tools/ holds the campaign tools
    (copy / "tools" / "campaign_script.py").write_text("import tlbench.backends.nvidia.backend\n")
    assert nvidia_hash() == before  # another backend, a script that imports this one: not its runtime
    for part in ("gpu/timing.py", "kernels/generic/factory.py", "nvidia/limits.py", "../harness/sweep_api/family.py"):
        _edit(copy / part)
        assert nvidia_hash() != before, part
        before = nvidia_hash()


def test_a_subclass_outside_the_package_adds_its_own_file():
    start = TESTS / "test_only" / "nvidia_test_only.py"
    files = runtime_files(start)
    assert start in files and {"nvidia/backend.py", "gpu/timing.py"} <= _relative(files)
    assert tree_hash(files) != tree_hash(runtime_files(ROOT / "nvidia" / "backend.py"))
