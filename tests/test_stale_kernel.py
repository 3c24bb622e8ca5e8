"""No stale kernel, ever: a kernel body edited in place, in a user's module outside tlbench, is
built, planned and probed anew on the next run, though its case id does not change.

The user's project (tests/fixtures/stale_kernel/, copied into tmp_path and run from there, as a
user runs from their own directory) is a family whose body lives in ``scale_body.py``, a module
no list names: ``build`` imports it lazily.  Every run is a fresh process (real tilelang
lowering, real nvcc where the NVIDIA backend builds, real on-disk caches in tmp_path):

- a warm compile (what a device item does: stored IR, tilelang's cache, stored plan) before and
  after the body changes ``* 2.0`` into ``* factor`` (3.0): the second run builds the new kernel
  and its plan is that kernel's (the plan's source hash is the built source's), the record's
  ``kernel_hash`` changes; a third run with no edit is served from the stored IR (no new file);
- the collection-time inert-key probe of two configs that differ only in ``factor``: inert for
  the body that ignores it, not inert once the body reads it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

PROJECT = Path(__file__).resolve().parent / "fixtures" / "stale_kernel"
OLD_LINE = "B[bx * block + i] = A[bx * block + i] * 2.0"
NEW_LINE = "B[bx * block + i] = A[bx * block + i] * factor"


@pytest.fixture
def project(tmp_path):
    for name in ("scale_family.py", "scale_body.py", "run_compile.py"):
        shutil.copy(PROJECT / name, tmp_path / name)
    shutil.copy(PROJECT / "scale_suite.py", tmp_path / "test_scale_suite.py")
    return tmp_path


def _env(project: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(project), *filter(None, [env.get("PYTHONPATH")])])
    env["TILELANG_CACHE_DIR"] = str(project / "tilelang-cache")
    env["TLBENCH_CACHE_DIR"] = str(project / "tlbench-cache")
    return env


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, *args], cwd=project, env=_env(project), capture_output=True, text=True, timeout=900)
    assert out.returncode in (0, 5), out.stdout[-3000:] + out.stderr[-3000:]  # 5: pytest collected, ran nothing
    return out


def _edit_body(project: Path) -> None:
    body = project / "scale_body.py"
    text = body.read_text()
    assert OLD_LINE in text
    body.write_text(text.replace(OLD_LINE, NEW_LINE).replace("v1 scales by a literal 2.0 and ignores", "v2 reads"))


def _compile(project: Path) -> dict:
    return json.loads(_run(project, "run_compile.py").stdout.strip().splitlines()[-1])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="the warm compile path (stored IR, tilelang's cache) builds with nvcc")
def test_an_edited_body_is_built_and_planned_anew(project):
    funcs = project / "tilelang-cache" / "tlbench-funcs"
    first = _compile(project)
    assert first["times_two"] and not first["times_three"]
    assert first["plan_source_sha256"] == first["built_source_sha256"]
    assert len(list(funcs.glob("*.json"))) == 1

    _edit_body(project)
    second = _compile(project)
    assert second["times_three"] and not second["times_two"], "the second run built the old kernel"
    assert second["built_source_sha256"] != first["built_source_sha256"]
    assert second["plan_source_sha256"] == second["built_source_sha256"], "the plan is not the built kernel's"
    assert second["kernel_hash"] != first["kernel_hash"]

    third = _compile(project)  # nothing edited: the stored IR serves it
    assert third == second
    assert len(list(funcs.glob("*.json"))) == 2


def test_an_edited_body_is_probed_anew_for_inert_keys(project):
    probe = ["-m", "pytest", "test_scale_suite.py", "--collect-only", "-q", "--tlbench-backend=nvidia", "-p", "no:cacheprovider"]
    inert = "swept keys that do not change the kernel: factor"
    first = _run(project, *probe)
    assert "2 configs requested, 2 legal" in first.stdout and inert in first.stdout
    assert list((project / "tlbench-cache").rglob("*.json")), "the probe stored nothing: the test would prove nothing"

    _edit_body(project)
    second = _run(project, *probe)
    assert "2 configs requested, 2 legal" in second.stdout
    assert inert not in second.stdout, "the probe answered from the cache for the old body"
