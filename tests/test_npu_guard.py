"""The Ascend run path without an NPU: every missing piece is named, nothing breaks.

Simulated without CANN: a ``torch_npu`` package whose import fails the way the real one
does on a machine without CANN, registered (like the real wheel) as a ``torch.backends``
auto-load entry point, so that a plain ``import torch`` breaks, exactly as torch_npu 2.14
does.  The guard in ``backends/__init__.py`` must keep torch importable and turn the failure
into a skip reason.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tlbench.backends.ascend import npu

ROOT = Path(__file__).resolve().parents[1]
HCCL_ERROR = "libhccl.so: cannot open shared object file: No such file or directory"


@pytest.fixture
def broken_torch_npu(tmp_path):
    pkg = tmp_path / "torch_npu"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"raise ImportError({HCCL_ERROR!r})\n")
    dist = tmp_path / "torch_npu-2.14.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.14.0\n")
    (dist / "entry_points.txt").write_text("[torch.backends]\ntorch_npu = torch_npu:_autoload\n")
    return tmp_path


def _python(code, extra_path, unset_autoload=True, cwd=ROOT):
    env = dict(os.environ)
    if unset_autoload:
        env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    env["PYTHONPATH"] = os.pathsep.join([str(extra_path), str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)


def test_absent_torch_npu_is_named():
    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}")

    probe = npu.probe(import_module=missing)
    assert "torch_npu is not installed" in probe.reason


def test_on_this_machine_bisheng_is_reported_missing():
    if npu.find_bisheng():
        pytest.skip("bisheng is installed here")
    assert "bisheng compiler not found (PATH or BISHENG_HOME/bin)" in npu.probe().reason


def test_the_simulated_torch_npu_really_breaks_plain_import_torch(broken_torch_npu):
    out = _python("import torch", broken_torch_npu)
    assert out.returncode != 0 and "libhccl.so" in out.stderr


def test_guard_keeps_torch_importable_and_reports_the_import_error(broken_torch_npu):
    code = (
        "import tlbench.backends, torch\n"
        "from tlbench.backends.ascend import npu\n"
        "print('REASON:', npu.probe().reason)\n"
    )
    out = _python(code, broken_torch_npu)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"REASON: torch_npu failed to import: ImportError: {HCCL_ERROR}" in out.stdout


def test_suite_runs_and_device_items_say_why(broken_torch_npu, tmp_path):
    code = (
        "import sys, pytest\n"
        "sys.exit(pytest.main(['suites/gemm/test_stages.py', '--tlbench-backend=ascend', '--tlbench-kind=device',"
        " '--tlbench-scope=smoke', '-k', 'bk32-t128-auto-s2', '-rs', '-p', 'no:cacheprovider', '-q']))\n"
    )
    out = _python(code, broken_torch_npu)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "ascend device timing unavailable: torch_npu failed to import: ImportError: libhccl.so" in out.stdout
    assert "1 skipped" in out.stdout
