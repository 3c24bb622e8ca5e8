"""Test-only fault and slowdown injection exists only where the test plugin is loaded.

- A plain ``pytest --help`` lists no test-only option; with ``-p test_only.faults``
  it lists all four (real pytest processes).
- No product module imports ``test_only`` (read from the syntax tree), and the
  product backends build no test-only object even when handed the option values.
- With the plugin, a given option puts its value into the registry's options and registers the
  test-only subclass under the backend's own name; the device worker's factory reference is that
  subclass, and building it yields the parsed objects; a bad value is a one-line usage error;
  no option given leaves the registry as it was.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_only import faults
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.registry import BackendRegistry
from tlbench.harness.measure.worker_spec import factory_ref

ROOT = Path(__file__).resolve().parents[1]
OPTION_NAMES = [o.name for o in faults.OPTIONS]
CASE = "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3"


def _help(tmp_path: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args, "--help"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_plain_pytest_help_lists_no_test_only_option_and_the_plugin_adds_them(tmp_path):
    plain = _help(tmp_path)
    assert "--tlbench-nvidia-arch" in plain  # tlbench's own options are there ...
    assert "test-only" not in plain.lower() and "TEST ONLY" not in plain  # ... the test-only ones are not
    loaded = _help(tmp_path, "-p", "test_only.faults")
    assert all(name in loaded for name in OPTION_NAMES), loaded[-3000:]


def _test_only_imports(path: Path) -> set[str]:
    """Imports of the test-only package: ``import``/``from`` statements and ``"test_only.x:y"``
    references (an entry point, a factory path)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("test_only."):
            names.add(node.value.split(":")[0])  # a module reference; a bare "test_only" is an option's word
    return {n for n in names if n == "test_only" or n.startswith("test_only.")}


def test_the_scan_sees_an_import_and_a_reference():
    assert _test_only_imports(Path(faults.__file__)) >= {"test_only.compile_slowdown", "test_only.nvidia_test_only"}


def test_no_product_module_imports_the_test_only_package():
    product = [p for top in ("harness", "backends", "suites") for p in (ROOT / top).rglob("*.py")]
    assert len(product) > 50
    offenders = {str(p.relative_to(ROOT)): sorted(_test_only_imports(p)) for p in product}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert not (ROOT / "backends" / "testing").exists()  # the package lives in tests/, outside the wheel


def test_the_product_backends_ignore_test_only_values():
    from tlbench.backends.nvidia.backend import NvidiaBackend

    backend = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a", "nvidia_test_only_fault": f"{CASE}=oob",
                                            "nvidia_test_only_slowdown": f"{CASE}:0.1",
                                            "nvidia_test_only_compile_slowdown": "*:0.2"}))
    assert (backend._faults, backend._slowdown, backend._compile_slowdown) == (None, None, None)


class _Config:
    """Stands in for pytest's config: only ``getoption`` of the plugin's own destinations."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def getoption(self, dest: str):
        return self.values.get(dest)


def test_no_option_given_leaves_the_registry_as_it_was():
    registry = BackendRegistry.from_entry_points(BackendOptions({"nvidia_arch": "sm_90a"}))
    factories, options = dict(registry.factories), registry.options
    faults.pytest_tlbench_register_backends(registry, _Config({}))
    assert registry.factories == factories and registry.options is options


def test_a_given_option_registers_the_subclass_the_worker_builds():
    from test_only.nvidia_test_only import TestOnlyNvidiaBackend

    registry = BackendRegistry.from_entry_points(BackendOptions({"nvidia_arch": "sm_90a"}))
    ascend_loader = registry.factories["ascend"]
    config = _Config({"tlbench_test_only_nvidia_test_only_fault": f"{CASE}=oob",
                      "tlbench_test_only_nvidia_test_only_compile_slowdown": "*:0.2"})
    faults.pytest_tlbench_register_backends(registry, config)
    assert registry.options.values == {"nvidia_arch": "sm_90a", "nvidia_test_only_fault": f"{CASE}=oob",
                                       "nvidia_test_only_compile_slowdown": "*:0.2"}
    assert registry.factories["ascend"] is ascend_loader  # only the named backend is replaced
    factory = registry.factories["nvidia"]()
    assert factory is TestOnlyNvidiaBackend and registry.traits("nvidia").name == "nvidia"
    # what the device worker is sent (harness/pytest_plugin/isolation.py) and builds
    assert (registry.factory_path("nvidia") or factory_ref(factory)) == \
        "test_only.nvidia_test_only:TestOnlyNvidiaBackend"
    backend = factory(registry.options)
    assert backend._faults.by_case == {CASE: "oob"} and backend._slowdown is None
    assert (backend._compile_slowdown.case_id, backend._compile_slowdown.fraction) == ("*", 0.2)
    controller = TestOnlyNvidiaBackend.from_worker_facts(registry.options, backend.worker_facts())
    assert isinstance(controller, TestOnlyNvidiaBackend) and controller._faults.by_case == {CASE: "oob"}


@pytest.mark.parametrize("dest, value, words", [
    ("nvidia_test_only_fault", f"{CASE}=boom", "--tlbench-nvidia-test-only-fault wants CASE_ID=KIND"),
    ("nvidia_test_only_slowdown", f"{CASE}:1.5", "--tlbench-nvidia-test-only-slowdown wants CASE_ID:FRACTION"),
    ("ascend_test_only_compile_slowdown", "x", "--tlbench-ascend-test-only-compile-slowdown wants CASE_ID:FRACTION"),
])
def test_a_bad_value_is_a_one_line_usage_error(dest, value, words):
    registry = BackendRegistry.from_entry_points(BackendOptions())
    with pytest.raises(pytest.UsageError) as err:
        faults.pytest_tlbench_register_backends(registry, _Config({"tlbench_test_only_" + dest: value}))
    assert words in str(err.value) and "\n" not in str(err.value)
    assert registry.options.values == {}  # nothing applied


def _collect(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)


def test_in_a_real_session_the_option_needs_the_plugin_and_its_hook_checks_the_value(tmp_path):
    plain = _collect(tmp_path, f"--tlbench-nvidia-test-only-fault={CASE}=oob")
    assert plain.returncode == 4 and "unrecognized arguments: --tlbench-nvidia-test-only-fault" in plain.stderr
    bad = _collect(tmp_path, "-p", "test_only.faults", f"--tlbench-nvidia-test-only-fault={CASE}=boom")
    assert bad.returncode == 4, bad.stdout + bad.stderr
    assert "--tlbench-nvidia-test-only-fault wants CASE_ID=KIND[,CASE_ID=KIND] with KIND in oob, spin" in bad.stderr
