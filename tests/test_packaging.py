"""The one-namespace packaging: harness/ and backends/ install as ``tlbench.harness`` and
``tlbench.backends`` (pyproject.toml's package-dir), every package of the tree is listed, and
the source tree can stand in for an install (``python3 -m harness.bootstrap --link DIR``).
Real subprocesses, no fakes."""

import re
import subprocess
import sys
from pathlib import Path

from tlbench.harness.pytest_plugin.legacy_name import typed_old_name

ROOT = Path(__file__).resolve().parents[1]


def _wheel_packages() -> set[str]:
    """The packages setuptools finds for the wheel (pyproject.toml's ``packages.find``)."""
    from setuptools import find_packages

    return set(find_packages(str(ROOT), include=["tlbench", "tlbench.*"]))


def test_every_package_of_the_tree_is_found():
    tree = {"tlbench"}
    for top in ("harness", "backends"):
        for init in (ROOT / top).rglob("__init__.py"):
            tree.add("tlbench." + ".".join(init.parent.relative_to(ROOT).parts))
    assert _wheel_packages() == tree


def test_the_linked_tree_imports_as_tlbench_and_runs_the_command(tmp_path):
    made = subprocess.run([sys.executable, "-m", "harness.bootstrap", "--link", str(tmp_path / "src")], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert made.stdout.strip() == str(tmp_path / "src")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "src")}
    probe = subprocess.run([sys.executable, "-c", "import tlbench.harness.cli as c, importlib.metadata as m; "
                            "print(c.__file__); print(sorted(e.name for e in m.entry_points(group='tlbench.families')))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    path, families = probe.stdout.splitlines()
    assert Path(path).resolve() == ROOT / "harness" / "cli.py"
    assert "gemm" in families
    version = subprocess.run([sys.executable, "-m", "tlbench", "--version"], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("tlbench "), version.stderr


def test_the_old_plugin_name_is_recognised_where_typed():
    assert typed_old_name(["-p", "harness.plugin", "suites"])
    assert typed_old_name(["-pharness.plugin"])
    assert not typed_old_name(["-p", "tlbench.harness.plugin"])
    assert not typed_old_name(["harness.plugin"])
