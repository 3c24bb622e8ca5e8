"""The backends' warm-up compile and the compile phase's setup around it.

A worker that times compile items calls its backend's ``warm_up_compile()`` (small kernels of
the backend's own through its real lowering) before it answers ``ready``; the compile phase's
setup then compiles no item.  The real backends' warm-up kernels are lowered here for real;
the setup's logic is tested with ``WarmingFakeBackend`` (tests/fake_backend.py, TEST-ONLY) in
real pytest processes and real worker processes.
"""

import json
import os
import subprocess
import sys

import pytest

import fake_backend
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.measure.setup_compile import setup_account, setup_words

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="warm_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (32, 64, 128)], vendor=False)

def test_fake(tlbench):
    tlbench.run()
"""
CONFTEST = fake_backend.CONFTEST + (
    "from fake_backend import WarmingFakeBackend\n\n"
    "def pytest_tlbench_register_backends(registry):\n"
    "    registry.register('fake', WarmingFakeBackend)\n")


def test_the_ascend_warm_up_lowers_a_cube_and_a_vector_kernel_through_the_z3_schedule():
    pytest.importorskip("tilelang")
    from tlbench.backends.ascend.backend import AscendBackend

    gemm, vector = AscendBackend(BackendOptions()).warm_up_compile()
    for facts, task, core in ((gemm, "gemm", "AIC"), (vector, "vector (SimtVF)", "AIV")):
        assert facts.missing is None and len(facts.loops) == 1
        loop = facts.loops[0]
        assert loop["num_stages"] == 2 and loop["ii"] > 0  # the Z3 schedule's initiation interval
        assert any(t["kind"] == task and t["cores"] == [core] for t in loop["tasks"])
        assert set(facts.buffer_versions.values()) == {2}  # multi-buffered by tl.AutoSchedule


def test_the_nvidia_warm_up_lowers_a_pipelined_gemm_tile_to_cuda():
    pytest.importorskip("tilelang")
    from tlbench.backends.nvidia.backend import NvidiaBackend

    (facts,) = NvidiaBackend(BackendOptions()).warm_up_compile()
    assert facts.pipeline["kind"] != "none" and facts.threads >= 128 and facts.source_sha256  # (a producer warp group may be added)


def _run(tmp_path, *options, env=None):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_warm_suite.py").write_text(SUITE)
    log = tmp_path / "compiles.log"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-kind=compile",
         "--tlbench-compile-rounds=3", "--benchmark-json=out.json", *options],
        cwd=tmp_path, capture_output=True, text=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}, "TLBENCH_FAKE_COMPILE_LOG": str(log),
             **(env or {})},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    doc = json.loads((tmp_path / "out.json").read_text())
    return log.read_text().splitlines(), doc["tlbench"]["setup_parts"]["fake"], done.stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_after_the_warm_up_the_setup_compiles_no_item(tmp_path, jobs):
    lines, setup, out = _run(tmp_path, f"--tlbench-compile-jobs={jobs}")
    warm = [line for line in lines if line.startswith("warm-up")]
    cold = [line for line in lines if "cold=True" in line]
    assert len(warm) == int(jobs)  # each worker that times compile items warmed its own compiler
    pid = lambda line: next(f for f in line.split() if f.startswith("pid="))  # noqa: E731
    assert {pid(w) for w in warm} == {pid(c) for c in cold}  # ... before any of its own compiles
    assert all(lines.index(w) < min(lines.index(c) for c in cold if pid(c) == pid(w)) for w in warm)
    assert len(cold) == 3 * 3  # three items, three rounds each: no setup compile among them
    assert setup["warm_up_s"] >= 0 and setup["own_lowering_s"] is None
    assert "outside every item; fake: no item compiled, the worker's own warm-up kernels compiled as it started)" in out


def test_a_failed_warm_up_leaves_the_setup_to_compile_the_first_item(tmp_path):
    lines, setup, out = _run(tmp_path, env={"TLBENCH_FAKE_WARM_UP_FAILS": "1"})
    assert not any(line.startswith("warm-up") for line in lines)
    assert len([line for line in lines if "cold=True" in line]) == 3 * 3 + 1  # the setup's compile of the first item
    assert "warm_up_s" not in setup and setup["own_lowering_s"] is not None and "no item compiled" not in out


def test_a_warm_up_that_takes_its_worker_down_costs_one_start_not_the_items(tmp_path):
    lines, setup, out = _run(tmp_path, env={"TLBENCH_FAKE_WARM_UP_DIES": "1"})
    assert len([line for line in lines if "cold=True" in line]) == 3 * 3 + 1  # the restarted worker: the setup's compile
    assert "warm_up_s" not in setup and "3 passed" in out


def test_a_slow_setup_after_a_warm_up_says_no_item_was_compiled():
    account = setup_account(9.2, 8.9, "compile-ascend-fa-b1h2-s1024-d128-bf16-bm128-bn128-t128-auto-s3", warm_up_s=0.4)
    assert setup_words("ascend", account) == (
        "ascend setup 9.2 s: 8.9 s waiting for the compiling process to start (its imports: the compiler and its runtime; "
        "then its first compile, of the backend's own warm-up kernels: 0.4 s of its start-up); 0.3 s loading the first "
        "item's modules in it (compile-ascend-fa-b1h2-s1024-d128-bf16-bm128-bn128-t128-auto-s3), no compile")
