"""One namespace, read where it is imported: the top-level ``tlbench/`` folder is the package, its
``harness``, ``backends`` and ``suites`` entries relative links to the top-level folders of those names.

- A plain checkout imports as ``tlbench`` with nothing installed and no third-party package
  (``python3 -S``, the checkout alone on PYTHONPATH), and ``tlbench.harness.core.sweep`` is the
  file ``harness/core/sweep.py``; the checkout's own pyproject.toml names its backends and
  families there.
- The pytest plugin loads without an installed entry point (suites/conftest.py, or
  ``-p tlbench.harness.plugin``), and where tlbench IS installed both name the plugin its entry
  point already loaded: never registered twice.
- The wheel (built and installed by pip into a folder of its own) holds every module of
  harness/, backends/ and the kernel families of suites/ as a file under ``tlbench/``, installs ``tlbench`` as its only
  top-level name (a user's own ``harness`` or ``backends`` stays theirs), carries the LICENSE its
  metadata names, and runs the command.
Real subprocesses and a real pip build, no fakes.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]
PLAIN = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}


def test_the_package_is_three_links_into_the_tree():
    assert sorted(p.name for p in (ROOT / "tlbench").iterdir() if p.name != "__pycache__") == [
        "__init__.py", "__main__.py", "backends", "harness", "suites"]
    for name in ("harness", "backends", "suites"):
        link = ROOT / "tlbench" / name
        assert link.is_symlink() and os.readlink(link) == f"../{name}"  # relative: a clone anywhere works
        assert link.resolve() == ROOT / name


def test_every_package_of_the_tree_is_found_through_the_links():
    tree = {"tlbench"} | {"tlbench." + ".".join(init.parent.relative_to(ROOT).parts)
                          for top in ("harness", "backends", "suites") for init in (ROOT / top).rglob("__init__.py")}
    assert set(find_packages(str(ROOT), include=["tlbench", "tlbench.*"])) == tree  # pyproject.toml's packages.find


def test_a_plain_checkout_imports_as_tlbench_with_nothing_installed(tmp_path):
    probe = ("import sys, tlbench, tlbench.harness.core.sweep as s; from tlbench.harness.core.entry_points import load_group; "
             "print(tlbench.__file__); print(s.__file__); "
             "print(sorted(load_group('tlbench.backends')), sorted(load_group('tlbench.families'))); "
             "print(any('site-packages' in p for p in sys.path))")
    out = subprocess.run([sys.executable, "-S", "-c", probe], cwd=tmp_path, env=PLAIN, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    init, sweep, groups, site = out.stdout.splitlines()
    assert Path(init) == ROOT / "tlbench" / "__init__.py" and Path(sweep).resolve() == ROOT / "harness" / "core" / "sweep.py"
    assert site == "False"  # no site-packages: no installed distribution, no third-party package
    assert "'nvidia'" in groups and "'gemm'" in groups  # the checkout's pyproject.toml names them


def _collect(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q",
                           "suites/gemm/test_stages.py", *args], cwd=ROOT, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=600)


def test_the_suites_load_the_plugin_without_its_entry_point():
    # No pytest11 entry point is loaded (as on a host where tlbench is only on PYTHONPATH):
    # suites/conftest.py names the plugin; pytest-benchmark is named by its own entry point.
    out = _collect("-p", "benchmark", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "device-nvidia-gemm-8192x8192x8192" in out.stdout


def test_naming_the_plugin_where_it_is_installed_registers_it_once():
    out = _collect("-p", "tlbench.harness.plugin", PYTEST_PLUGINS="tlbench.harness.plugin")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]  # not "Plugin already registered"
    assert "device-nvidia-gemm-8192x8192x8192" in out.stdout
    off = _collect("-p", "no:tlbench.harness.plugin")
    assert "device-nvidia-gemm" not in off.stdout  # the one name turns it off, conftest included


def test_the_wheel_installs_tlbench_alone_with_every_module(installed_tlbench, tmp_path):
    tops = sorted(p.name for p in installed_tlbench.iterdir() if p.name != "bin")
    assert tops == ["tlbench", "tlbench-0.1.0.dist-info"]
    for top in ("harness", "backends", "suites"):
        for path in (ROOT / top).rglob("*.py"):
            if top == "suites" and not (path.parent / "__init__.py").is_file():
                continue  # suites/conformance/ is no package: users' suites, not shipped
            installed = installed_tlbench / "tlbench" / path.relative_to(ROOT)
            assert installed.is_file() and not installed.is_symlink(), installed
    assert (installed_tlbench / "tlbench" / "harness" / "results" / "schema" / "results.schema.json").is_file()
    metadata = (installed_tlbench / "tlbench-0.1.0.dist-info" / "METADATA").read_text()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert (installed_tlbench / "tlbench-0.1.0.dist-info" / "licenses" / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(installed_tlbench)}
    probe = ("import importlib.metadata as m, importlib.util as u, tlbench.harness.cli as c; print(c.__file__); "
             "print(sorted(e.name for e in m.entry_points(group='pytest11') if e.value.startswith('tlbench'))); "
             "print(u.find_spec('harness'), u.find_spec('backends'))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    cli, plugins, clash = out.stdout.splitlines()
    assert Path(cli) == installed_tlbench / "tlbench" / "harness" / "cli.py"
    assert plugins == "['tlbench.harness.plugin']"
    assert clash == "None None"  # only tlbench is a top-level name
    version = subprocess.run([sys.executable, "-m", "tlbench", "--version"], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("tlbench 0.1.0"), version.stderr
