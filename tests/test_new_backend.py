"""A new backend is its own folder plus one registration, counted:

tests/toys/toylang/ is a backend as a third party adds one.  It subclasses
backends/backend_base.py's ``TileLangBackend`` and says exactly what the base declares abstract
(no more: everything else is the base's), it imports nothing of backends/ but the base, no file
under harness/ or backends/ names it, and it registers through one distribution's entry points
(``tlbench.backends`` and ``tlbench.traits``, a dist-info on ``PYTHONPATH``).  Then a real pytest
process sweeps, compiles, checks and times the toy vadd family on it.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "toys"))
from toy_project import ROOT, TOYS, run_pytest  # noqa: E402
from toylang.backend import ToyLangBackend  # noqa: E402
from tlbench.backends.backend_base import TileLangBackend  # noqa: E402

FOLDER = TOYS / "toylang"
REGISTRATION = """[tlbench.backends]
toylang = toylang.backend:ToyLangBackend

[tlbench.traits]
toylang = toylang.backend:ToyLangBackend.traits
"""
DECLARED = {"traits", "target_kind"}  # the class attributes the base reads (name and dialect come from traits)
SUITE = """
from tlbench.harness.core.sweep import Sweep
from toy_family import VaddConfig, VaddProblem

SWEEP = Sweep(name="vadd", problems=[VaddProblem(4096)],
              configs=[VaddConfig(256), VaddConfig(256, num_stages=2), VaddConfig(128)], vendor=False)

def test_vadd(tlbench):
    tlbench.run()
"""


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
    return names


def test_the_toy_backend_says_only_what_the_base_declares_abstract():
    tree = ast.parse((FOLDER / "backend.py").read_text())
    (body,) = [node.body for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ToyLangBackend"]
    own = {node.name for node in body if isinstance(node, ast.FunctionDef) and node.name != "__init__"}
    own |= {target.id for node in body if isinstance(node, ast.Assign) for target in node.targets}
    abstract = set(TileLangBackend.__abstractmethods__)
    assert abstract and not ToyLangBackend.__abstractmethods__  # it can be made
    assert own == abstract | DECLARED, own ^ (abstract | DECLARED)
    assert (ToyLangBackend.name, ToyLangBackend.dialect) == ("toylang", "toy")


def test_a_new_backend_is_its_folder_plus_one_registration(tmp_path):
    files = sorted(p.relative_to(FOLDER).as_posix() for p in FOLDER.rglob("*.py"))
    assert files == ["__init__.py", "backend.py"]
    imported = set().union(*(_imports(FOLDER / f) for f in files))
    ours = {name for name in imported if name.startswith("tlbench.")}
    assert {n for n in ours if not n.startswith("tlbench.harness.")} == {"tlbench.backends.backend_base"}
    named = [p for top in ("harness", "backends") for p in (ROOT / top).rglob("*.py") if "toylang" in p.read_text()]
    assert named == []  # nothing in the product knows it
    touched = [*(f"tests/toys/toylang/{f}" for f in files), "entry_points.txt (one registration)"]
    assert len(touched) == 3, touched

    dist = tmp_path / "toylang-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toylang\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(REGISTRATION)
    (tmp_path / "test_vadd.py").write_text(SUITE)
    done = run_pytest(tmp_path, "a.json", "--tlbench-max-seconds=0.2", "--tlbench-backend=toylang", "-rs")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "4 passed, 2 skipped" in out and "needs 6144 B, limit 4096 B on toylang" in out  # one config over toy.sram
    doc = json.loads((tmp_path / "a.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert {r["backend"] for r in records} == {"toylang"}
    assert {r["kind"] for r in records} == {"compile", "device"}
    assert all(r["check"]["ok"] for r in records if r["kind"] == "device")
    assert {r["family"] for r in records} == {"vadd"}  # the toy family below, swept on the toy backend


def test_a_new_kernel_family_is_its_own_file_and_no_registration():
    """tests/toys/toy_family.py is a family as a user adds one (the vadd family the run above
    sweeps): one module that imports only the harness, named by no product file, registered nowhere."""
    family = TOYS / "toy_family.py"
    ours = {name for name in _imports(family) if name.startswith("tlbench.")}
    assert ours and all(name.startswith("tlbench.harness.") for name in ours), ours
    words = ("toy_family", "VaddFamily", "VaddProblem")
    named = [p for top in ("harness", "backends", "suites") for p in (ROOT / top).rglob("*.py")
             if any(w in p.read_text() for w in words)]
    assert named == []
    assert not any(w in (ROOT / "pyproject.toml").read_text() for w in words)
