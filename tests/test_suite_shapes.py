"""The corpus of suite shapes users write (tests/suite_shapes/), each passing its preflight and
its CPU compile items on both backends: flat ``configs=`` of two bodies filtered by a
``validate`` (two suites an earlier preflight refused: an elementwise op, and a top-1 with an int32
output), per-body configs, ``**kwargs`` callables with constants, and an ``@autotune`` over a
``@tilelang.jit`` body.  The preflight's verdict is the run's: a config ``validate`` refuses
is skipped by the run, so the names it lacks are never asked of it.

The compile items of the whole corpus run in ONE pytest process (real tilelang, no device).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

from tlbench.harness.cli import main as tlbench_main  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "suite_shapes"
SUITES = sorted(str(p) for p in CORPUS.glob("shape_*.py") if p.name != "shape_bodies.py")
BODIES = {  # suite -> the backends it has a body for
    "shape_flat_sum": ("nvidia", "ascend"), "shape_flat_best": ("nvidia", "ascend"),
    "shape_per_body": ("nvidia", "ascend"), "shape_kwargs": ("nvidia",), "shape_autotune": ("nvidia",),
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("shapes") / "corpus.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *SUITES, "--benchmark-only", "--tlbench-backend=nvidia,ascend",
         "--tlbench-kind=compile", "--tlbench-scope=smoke", "--tlbench-compile-rounds=1", f"--benchmark-json={out}",
         "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=CORPUS, timeout=1200,
    )
    assert out.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    return run, json.loads(out.read_text())


def test_the_corpus_is_every_shape():
    assert sorted(Path(s).stem for s in SUITES) == sorted(
        ["shape_flat_sum", "shape_flat_best", "shape_per_body", "shape_kwargs_constants", "shape_autotune_jit"])


def test_tlbench_check_passes_every_shape_at_every_scope_size(capsys):
    code = tlbench_main(["check", *SUITES, "--backend", "nvidia,ascend"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0, lines
    assert not [line for line in lines if line.startswith("preflight") and "fix:" in line], lines
    assert lines[-1].endswith("0 failing their preflight: ok (nothing was compiled)")


def test_flat_configs_filtered_by_validate_pass_the_preflight_on_each_body(capsys):
    # the refused shape: every item used to fail "body vec_sum_2d: it takes 'block_M', which no size, axis or constant gives"
    for suite in ("shape_flat_sum", "shape_flat_best"):
        code = tlbench_main(["check", str(CORPUS / f"{suite}.py"), "--backend", "nvidia,ascend"])
        out = capsys.readouterr().out
        assert code == 0 and "which no size, axis or constant gives" not in out, out


def test_every_compile_item_of_the_corpus_passes_on_both_backends(compiled):
    run, data = compiled
    assert run.returncode == 0, run.stdout[-3000:]
    assert data["tlbench"]["failed"] == []
    built = {(r["kernel"], r["backend"]) for r in (b["extra_info"]["tlbench"] for b in data["benchmarks"])}
    assert built == {(suite, backend) for suite, backends in BODIES.items() for backend in backends}


def test_the_configs_validate_refuses_are_skipped_with_its_words(compiled):
    _, data = compiled
    skipped = {(s["kernel"], s["backend"], s["reason"]) for s in data["tlbench"]["skipped"]}
    assert ("shape_flat_sum", "nvidia", "invalid: an Ascend body's config") in skipped
    assert ("shape_flat_sum", "ascend", "invalid: a CUDA body's config") in skipped
    flat = [r for r in (b["extra_info"]["tlbench"] for b in data["benchmarks"]) if r["kernel"] == "shape_flat_sum"]
    assert sorted(r["case_id"].split("-", 3)[-1] for r in flat) == [
        "block_M32-block_N64-threads128", "block_M64-block_N64-threads256", "modenarrow", "modewide"]
