"""A backend's controller-side instance, built from its device worker's report.

Where items run in device workers, the pytest process needs a backend only to collect and
report.  ``BackendRegistry.get`` builds a factory that has ``from_worker_facts`` from the
worker's ``worker_facts`` (harness/core/registry.py), so the pytest process never imports
torch or tilelang for the NVIDIA backend (a faster start and exit) and describes the GPU
the worker measures on.  Pinned here: the registry's choice (with a fake factory: the
harness's own logic), the real NVIDIA backend's round trip through its facts, its module
importing neither torch nor tilelang, and a real run whose pytest process imports neither.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.registry import BackendRegistry

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "tilelang", "tvm")


class FakeFactory:
    """A fake backend factory (harness logic only): records how it was built."""

    def __init__(self, options, facts=None):
        self.facts = facts

    @classmethod
    def from_worker_facts(cls, options, facts):
        return cls(options, facts)


class FakeFactoryWithoutFacts:
    def __init__(self, options):
        self.facts = "probed itself"


def _registry(factory, source):
    registry = BackendRegistry()
    registry.register("fake", factory)
    registry.worker_facts = source
    return registry


def test_registry_builds_from_the_workers_facts():
    asked = []
    registry = _registry(FakeFactory, lambda name: asked.append(name) or {"arch": "x"})
    assert registry.get("fake").facts == {"arch": "x"}
    assert asked == ["fake"]


def test_registry_probes_itself_without_facts():
    assert _registry(FakeFactory, lambda name: None).get("fake").facts is None  # the worker reported none
    assert _registry(FakeFactory, None).get("fake").facts is None  # no device workers (inprocess)
    asked = []
    built = _registry(FakeFactoryWithoutFacts, lambda name: asked.append(name) or {}).get("fake")
    assert built.facts == "probed itself" and asked == []  # a factory without from_worker_facts: worker not asked


def test_nvidia_module_imports_no_device_runtime():
    code = "import sys, tlbench.backends.nvidia, tlbench.backends.nvidia.backend; print(sorted(m for m in %r if m in sys.modules))" % (HEAVY,)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_nvidia_round_trip_through_facts():
    pytest.importorskip("tilelang")
    from tlbench.backends.nvidia.backend import NvidiaBackend

    own = NvidiaBackend(BackendOptions({}))
    facts = json.loads(json.dumps(own.worker_facts()))  # plain data, as the worker sends it
    described = NvidiaBackend.from_worker_facts(BackendOptions({}), facts)
    assert described.device_info() == own.device_info()
    assert described.device_blocker() == own.device_blocker()
    assert described.lowering_key() == own.lowering_key()
    assert described.arch == own.arch and str(described.target) == str(own.target)
    with pytest.raises(RuntimeError, match="run in that worker"):
        described.make_inputs(None, 0)


SUITE = f"""
import sys
from dataclasses import dataclass

sys.path.insert(0, {str(Path(__file__).resolve().parent / "toys")!r})
sys.path.insert(0, {str(Path(__file__).resolve().parents[1] / "suites")!r})
from tile_family import TileConfig, TileFamily, TileProblem
from tlbench.harness.core.sweep import Sweep


class BodiedTile(TileFamily):
    \"\"\"The test-only tile family with a real CUDA body: the built-in GEMM's (suites/gemm/body.py),
    imported where the worker builds it.  Like every typed family it runs no preflight, so nothing
    but the backend could import a device runtime into the pytest process.\"\"\"

    name = "tile_gemm"

    def build(self, problem, config, dialect):
        from tlbench.suites.gemm.body import gemm_cuda

        return gemm_cuda(M=problem.M, N=problem.N, K=problem.K, dtype=problem.dtype, block_M=config.block_M,
                         block_N=config.block_N, block_K=config.block_K, threads=config.threads,
                         loop_form=config.loop_form, num_stages=config.num_stages)


BODIED = BodiedTile()


@dataclass(frozen=True)
class BodiedProblem(TileProblem):
    @property
    def family(self):
        return BODIED


SWEEP = Sweep(name="facts", problems=[BodiedProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, 128, 32, 128, "auto", 2)], vendor=True)

def test_facts(tlbench):
    tlbench.run()
"""

CONFTEST = """
import json, sys

def pytest_unconfigure(config):
    with open("heavy.json", "w") as f:
        json.dump(sorted(m for m in %r if m in sys.modules), f)
""" % (HEAVY,)


def test_pytest_process_imports_no_device_runtime(tmp_path):
    """A real run (the compile item built and lowered in the worker, device items skipped on this
    box): the pytest process never imported torch, tilelang or tvm, and its results still name
    the testbed.  The suite's family is a typed one (no preflight); a ``kernel_sweep`` suite's
    preflight traces its body and runs its callables on CPU torch in the pytest process by
    design (README), so this pins the backend's part."""
    pytest.importorskip("tilelang")
    (tmp_path / "test_facts.py").write_text(SUITE)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "test_facts.py", "--tlbench-backend=nvidia", "--tlbench-compile-rounds=1",
         "--benchmark-json=out.json", "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=tmp_path, timeout=900,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert json.loads((tmp_path / "heavy.json").read_text()) == []
    data = json.loads((tmp_path / "out.json").read_text())
    info = data["machine_info"]["tlbench"]["backends"]["nvidia"]
    assert info["target"].startswith("cuda sm_") and info["tilelang"]
    compiled = [b for b in data["benchmarks"] if b["extra_info"]["tlbench"]["kind"] == "compile"]
    assert compiled and all(b["extra_info"]["tlbench"].get("plan") for b in compiled)


def test_workers_close_ends_sessions_made_after_begin_close():
    """``begin_close`` (at sessionfinish) starts ending the workers; a session made after it
    (a backend first loaded while the results are written) is still ended by ``close``."""
    from tlbench.harness.pytest_plugin.isolation import Workers

    class Options:  # stands in for pytest's config: the two options Workers reads
        @staticmethod
        def getoption(name):
            return {"--tlbench-timeout": None, "--tlbench-compile-timeout": 60.0}[name]

    registry = BackendRegistry()
    registry.register("fake", FakeFactory)
    workers = Workers(Options(), registry)
    early = workers.session("fake")
    workers.begin_close()
    late = workers.session("fake", 1)
    assert late is not early
    workers.close()
    assert early._closed and late._closed
    assert workers.device_infos("fake") == []
