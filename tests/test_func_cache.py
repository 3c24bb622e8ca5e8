"""The NVIDIA backend's stored kernel IR (backends/gpu/func_cache.py): a warm compile that
finds it skips building the IR from the Python body, and gives tilelang the same IR.

The first test uses the real tilelang frontend and tvm's JSON serializer on real suite
cases: the stored and reloaded IR prints (``script(show_meta=True)``, what tilelang's cache
key hashes) and compares (``structural_equal``) exactly as the IR the body builds.  The
second test checks the backend's own logic around the cache (when it reads, when it
builds, that cold compiles never read it) with tilelang's compile step replaced by a
recorder: a fake, named ``FakeTilelangCompile``, that builds nothing.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

from tlbench.backends.gpu.func_cache import FuncCache  # noqa: E402
from tlbench.harness.core.cases import Case  # noqa: E402


def _cases(backend, suite: str, count: int) -> list[Case]:
    sweep = importlib.import_module(f"tlbench.suites.{'flash_attention' if suite.startswith('test_fa_') else 'gemm'}.{suite}").SWEEP
    cases = [c for c in sweep.cases("nvidia", "full", device=None, load_best=lambda *a, **k: None)
             if isinstance(c, Case) and backend.rejection(c) is None]
    step = max(1, len(cases) // count)
    return cases[::step][:count]


@pytest.mark.parametrize("suite, count", [("test_tiles", 6), ("test_stages", 4), ("test_fa_stages", 2)])
def test_stored_ir_is_the_ir_the_body_builds(nvidia_sm90a, tmp_path, suite, count):
    import tvm

    cache = FuncCache(tmp_path)
    cases = _cases(nvidia_sm90a, suite, count)
    assert cases, f"{suite} has no legal NVIDIA case"
    for case in cases:
        built = nvidia_sm90a._build(case)
        key = FuncCache.key(*nvidia_sm90a._cache_key_parts(case))
        assert cache.get(key) is None
        cache.put(key, built)
        loaded = cache.get(key)
        assert loaded is not None, case.case_id
        assert loaded.script(show_meta=True) == built.script(show_meta=True), case.case_id
        assert tvm.ir.structural_equal(loaded, built), case.case_id


def test_key_names_the_case_the_body_and_the_compiler():
    a = FuncCache.key("tilelang 0.1.15; cuda sm_90a", "sha256:body", "gemm-1-a")
    assert a == FuncCache.key("tilelang 0.1.15; cuda sm_90a", "sha256:body", "gemm-1-a")
    assert a != FuncCache.key("tilelang 0.1.15; cuda sm_90a", "sha256:body", "gemm-1-b")
    assert a != FuncCache.key("tilelang 0.1.16; cuda sm_90a", "sha256:body", "gemm-1-a")
    assert a != FuncCache.key("tilelang 0.1.15; cuda sm_90a", "sha256:edited", "gemm-1-a")


def test_an_unreadable_file_is_a_miss(tmp_path):
    cache = FuncCache(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    assert cache.get("bad") is None
    assert FuncCache(None).get("anything") is None


class FakeTilelangCompile:
    """Stands in for ``tilelang.compile``: records the IR it is given, builds nothing."""

    def __init__(self):
        self.scripts: list[str] = []

    def __call__(self, func, **_kwargs):
        self.scripts.append(func.script(show_meta=True))
        return object()


def test_a_warm_compile_reads_the_stored_ir_and_a_cold_one_never_does(tmp_path, monkeypatch):
    import tlbench.backends.nvidia.backend as nvidia_backend
    from tlbench.backends.nvidia import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    import tilelang  # the backend imports it where it compiles: the fake is seen there

    fake = FakeTilelangCompile()
    monkeypatch.setattr(tilelang, "compile", fake)
    monkeypatch.setattr(nvidia_backend.shutil, "which", lambda _name: "/usr/bin/nvcc")  # take the build path

    def backend_with_cache():
        backend = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))
        from tlbench.backends.gpu.plan_cache import PlanCache

        backend._caches = (PlanCache(tmp_path / "plans"), FuncCache(tmp_path / "funcs"))  # this test's own cache directory
        builds: list[str] = []
        real_build = backend._build
        monkeypatch.setattr(backend, "_build", lambda case: builds.append(case.case_id) or real_build(case))
        return backend, builds

    case = _cases(backend_with_cache()[0], "test_stages", 1)[0]
    first, first_builds = backend_with_cache()
    first.compile(case, cold=False)
    # nothing stored yet: built, then stored (and built once more by the plan's own lowering,
    # since the fake compile lowers nothing; the plan is stored then)
    assert first_builds == [case.case_id, case.case_id]

    second, second_builds = backend_with_cache()  # a new process's backend, same cache directory
    second.compile(case, cold=False)
    assert second_builds == []  # the stored IR, not the body
    assert fake.scripts[1] == fake.scripts[0]  # tilelang was given the same IR both times

    second.compile(case, cold=True)
    assert second_builds == [case.case_id]  # a cold compile builds the IR, as it times the whole build


def test_keyed_files_write_whole_files_and_report_a_refusing_disk(tmp_path):
    from tlbench.backends.gpu.keyed_files import KeyedFiles

    files = KeyedFiles(tmp_path / "k")
    assert files.read("a") is None and not files.has("a")
    assert files.write("a", "one") and files.read("a") == "one" and files.has("a")
    assert files.write("a", "two") and files.read("a") == "two"
    assert [p.name for p in (tmp_path / "k").iterdir()] == ["a.json"]  # no temporary file left
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    assert KeyedFiles(blocked / "k").write("a", "x") is False  # the disk refuses: False, no exception
    assert KeyedFiles(None).write("a", "x") is False and KeyedFiles(None).read("a") is None


def test_the_warp_specialized_fa_body_hash_names_the_hopper_module_it_calls(nvidia_sm90a):
    """hopper_ws.py calls hopper.py's online-softmax step: the kernel hash of
    every flash-attention case covers the suites' factory module (build.py) and the
    kernel modules it imports, both Hopper bodies among them, and the problem and config values
    the bodies read; so an edit to the shared step changes the hash of every body that runs it."""
    from tlbench.harness.core.kernel_traits import modules_hash
    from tlbench.harness.core.source_closure import source_closure

    suites = Path(__file__).resolve().parents[1] / "suites" / "flash_attention"
    cases = {c.config.values.get("body"): c for c in _cases(nvidia_sm90a, "test_fa_stages", 200)}
    assert {"hopper", "hopper_ws", "hopper_ws_ov"} <= set(cases)
    declared = [str(suites / "build.py"), "tlbench.suites.flash_attention.problem"]  # factories, values
    for body in ("hopper", "hopper_ws", "hopper_ws_ov"):
        assert nvidia_sm90a.kernel_body_hash(cases[body]) == modules_hash(declared), body
    covered = {path.name for path in source_closure([suites / "build.py"])}
    assert {"hopper_ws.py", "hopper.py", "body.py", "validation.py"} <= covered
    assert modules_hash(declared) not in (modules_hash([str(suites / "hopper_ws.py")]), modules_hash([str(suites / "hopper.py")]))
