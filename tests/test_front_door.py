"""The front door a user's suite takes: ``from tlbench import kernel_sweep, ...``, and the
README's example as shipped.

What is pinned: ``import tlbench`` imports neither torch, tilelang nor tlbench's backends, and
neither it nor importing the front-door names changes the process's environment (no torch
variable); ``kernel_sweep``'s docstring names every argument it takes and says what each
scope runs; the README's "Benchmark your own kernel" code block is, character for character,
suites/gemv/test_gemv.py below its docstring, its install lines name the ``cpu-torch`` extra with
PyTorch's CPU index; that suite passes ``tlbench check`` and one config of each backend
compiles as shipped.
"""

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tlbench.harness.cli import main as tlbench_main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
GEMV_SUITE = ROOT / "suites" / "gemv" / "test_gemv.py"


def _python(code: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TORCH_DEVICE_BACKEND_AUTOLOAD"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


PROBE = """
import json, os, sys
before = dict(os.environ)
{statement}
heavy = sorted(m for m in ("torch", "tilelang", "tvm", "tlbench.backends") if m in sys.modules)
print(json.dumps({{"heavy": heavy, "env_changed": sorted(set(os.environ.items()) ^ set(before.items()))}}))
"""


def test_import_tlbench_stays_light_and_sets_nothing():
    seen = _python(PROBE.format(statement="import tlbench"))
    assert seen == {"heavy": [], "env_changed": []}


def test_the_front_door_names_import_without_torch_and_set_no_environment_variable():
    seen = _python(PROBE.format(statement="from tlbench import kernel_sweep, tolerance, steps, similarity, mismatch, exact"))
    assert seen == {"heavy": [], "env_changed": []}  # the front door is the harness's: no backend code either


def test_the_docstring_names_every_argument_and_the_scopes():
    from tlbench import kernel_sweep

    doc = inspect.getdoc(kernel_sweep)
    described = set()
    for line in doc.splitlines():
        match = re.match(r"^([a-z_]+(?:, [a-z_]+)*): ", line)
        if match:
            described |= set(match.group(1).split(", "))
    assert set(inspect.signature(kernel_sweep).parameters) - {"vendor_label"} <= described, \
        set(inspect.signature(kernel_sweep).parameters) - described
    assert "``vendor_label``" in doc
    flat = " ".join(doc.split())
    for words in ("``smoke`` runs the ``smoke`` sizes (else the first of ``sizes``)", "``full`` runs the smoke sizes then every size",
                  "``quick`` (the default) runs the ``quick`` sizes, and without ``quick=`` the same as ``full``"):
        assert words in flat


def test_the_readme_example_is_the_shipped_suite():
    block = README.split("## Benchmark your own kernel", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    shipped = GEMV_SUITE.read_text()
    below_docstring = shipped[shipped.index('"""', 3) + 3:].lstrip("\n")
    assert block == below_docstring
    assert "from tlbench import kernel_sweep" in block and (ROOT / "suites" / "gemv" / "body.py").is_file()


def test_the_readme_says_how_to_install_into_ones_own_project():
    section = README.split("## Benchmark your own kernel", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    cpu, gpu = [line for line in section.splitlines() if line.startswith("pip install")]
    assert "[cpu-torch]" in cpu and "--extra-index-url https://download.pytorch.org/whl/cpu" in cpu
    assert "[nvidia]" in gpu


def test_the_shipped_example_passes_its_preflight(capsys):
    pytest.importorskip("tilelang")
    assert tlbench_main(["check", str(GEMV_SUITE)]) == 0
    assert capsys.readouterr().out.strip().endswith("0 failing their preflight: ok (nothing was compiled)")


def test_the_shipped_example_compiles_one_config_per_backend(tmp_path):
    pytest.importorskip("tilelang")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(GEMV_SUITE), "--tlbench-backend=nvidia,ascend", "--tlbench-kind=compile",
         "--tlbench-scope=smoke", "--tlbench-compile-rounds=1", "-k", "block_M64-block_N128-s2 or block_M4-block_N128-s2",
         "--tlbench-instructions=hardware",  # counts are not what this tests: no callgrind children
         "-p", "no:cacheprovider", "-q", f"--benchmark-json={tmp_path / 'gemv.json'}"],
        capture_output=True, text=True, cwd=ROOT, timeout=1500,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "gemv.json").read_text())["benchmarks"]]
    assert sorted((r["backend"], r["case_id"]) for r in records) == [
        ("ascend", "gemv-M2048-N2048-block_M4-block_N128-s2"), ("nvidia", "gemv-M2048-N2048-block_M64-block_N128-s2")]


def test_editors_read_the_front_door_names_where_they_are_defined():
    """tlbench/__init__.py hands the names on lazily (``__getattr__``), which static tools cannot
    follow; its ``if TYPE_CHECKING:`` import names exactly the front door, so an editor (jedi,
    pyright) shows ``kernel_sweep``'s signature and docstring from a plain checkout."""
    import ast

    import tlbench

    tree = ast.parse((ROOT / "tlbench" / "__init__.py").read_text())
    guarded = [node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"]
    assert len(guarded) == 1
    imported = {alias.name for node in guarded[0].body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert imported == set(tlbench.FRONT_DOOR)
    assert all(getattr(tlbench, name) is not None for name in imported)
