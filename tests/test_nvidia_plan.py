"""Pipeline plans captured from tilelang's CUDA passes (no GPU needed), of the built-in GEMM
(suites/gemm/body.py, declared as the suites declare it: tests/builtin_gemm.py)."""

import pytest

pytest.importorskip("tilelang")

from builtin_gemm import config, gemm_case, problem  # noqa: E402

FP16 = problem(1024, 1024, 1024, "float16")


def _plan(backend, loop_form, num_stages, tile=(128, 128, 32, 128)):
    compiled = backend.compile(gemm_case(FP16, config(*tile, loop_form, num_stages)), cold=False)
    return backend.inspect(compiled)


@pytest.mark.parametrize(
    "num_stages, versions, stage, order, smem",
    [
        (0, 1, None, None, 16384),
        (1, 1, [0, 0, 1], [1, 2, 0], 16384),
        (2, 2, [0, 0, 1], [0, 1, 2], 32768),
        (3, 3, [0, 0, 2], [0, 1, 2], 49152),
        (4, 4, [0, 0, 3], [0, 1, 2], 65536),
    ],
)
def test_sm80_num_stages_gives_buffer_versions(nvidia_sm80, num_stages, versions, stage, order, smem):
    plan = _plan(nvidia_sm80, "auto", num_stages)
    assert [b["versions"] for b in plan.buffers] == [versions, versions]
    assert plan.bytes_per_scope["shared.dyn"] == smem
    if stage is None:
        assert plan.pipeline["kind"] == "none"
    else:
        assert plan.pipeline["kind"] == "software-pipeline"
        assert (plan.pipeline["stage"], plan.pipeline["order"]) == (stage, order)
    assert plan.features["cp_async"] == (num_stages >= 1)


def test_sm80_manual_and_serial_loops(nvidia_sm80):
    manual = _plan(nvidia_sm80, "manual", None)
    assert (manual.pipeline["stage"], manual.pipeline["order"]) == ([0, 0, 1], [0, 1, 2])
    assert [b["versions"] for b in manual.buffers] == [2, 2]
    serial = _plan(nvidia_sm80, "serial", None)
    assert serial.pipeline["kind"] == "none" and serial.bytes_per_scope["shared.dyn"] == 16384


def test_sm90a_auto_pipelines_are_warp_specialized_with_tma(nvidia_sm90a):
    plan = _plan(nvidia_sm90a, "auto", 3)
    assert plan.pipeline["kind"] == "warp-specialized"
    assert plan.threads == 256  # 128 producer + 128 consumer threads
    assert plan.features["tma"] and plan.features["wgmma"]
    assert [b["versions"] for b in plan.buffers] == [3, 3]
    manual = _plan(nvidia_sm90a, "manual", None)
    assert manual.pipeline["kind"] == "software-pipeline" and manual.threads == 128


def test_a_config_tilelang_rejects_raises_compile_error_with_its_words(nvidia_sm90a):
    from tlbench.harness.core.backend_api import CompileError

    with pytest.raises(CompileError, match="No valid warp partition"):
        nvidia_sm90a.compile(gemm_case(FP16, config(128, 256, 64, 384, "auto", 3)), cold=False)


def test_a_tilelang_cache_hit_reads_the_plan_stored_beside_it_instead_of_lowering_again(nvidia_sm90a, tmp_path):
    """A warm compile (tilelang's cache answers, nothing is lowered) used to lower the kernel
    once more for its plan; now the plan a real lowering recorded is read from disk, and it is
    the same plan a fresh lowering gives."""
    from tlbench.backends.gpu.plan import lower_with_plan
    from tlbench.backends.gpu.plan_cache import PlanCache

    nvidia_sm90a._caches = (PlanCache(tmp_path), nvidia_sm90a._funcs)  # this test's own plan directory
    case = gemm_case(FP16, config(128, 128, 32, 128, "auto", 3))
    assert not nvidia_sm90a.likely_cached(case)  # no plan stored: the compile pool's wide lane
    first = nvidia_sm90a.compile(case, cold=False)  # a real build, or a cache hit that lowers: stores the plan
    assert len(list(tmp_path.glob("*.json"))) == 1
    assert nvidia_sm90a.likely_cached(case)  # its plan is stored: the narrow lane of cache hits
    again = nvidia_sm90a.compile(case, cold=False)
    assert "lower_and_plan" not in again.phases_s  # nothing lowered
    assert again.plan == first.plan
    _, fresh = lower_with_plan(case.family.build(case.problem, case.config, nvidia_sm90a.dialect), nvidia_sm90a.target)
    assert again.plan.pipeline == {**fresh.pipeline, "loop_form": "auto", "num_stages": 3}
    assert again.plan.buffers == fresh.buffers


def test_the_plan_cache_ignores_what_it_cannot_read_and_stores_nothing_without_a_directory(tmp_path):
    from tlbench.backends.gpu.plan import PlanFacts
    from tlbench.backends.gpu.plan_cache import PlanCache

    facts = PlanFacts(pipeline={"kind": "ws"}, buffers=[], dynamic_smem_bytes=1, threads=2, grid=3, features={"tma": True}, source_sha256="x")
    cache = PlanCache(tmp_path)
    key = PlanCache.key("tilelang 0.1.15; cuda", "h", "case")
    assert key != PlanCache.key("tilelang 0.1.16; cuda", "h", "case") and key != PlanCache.key("tilelang 0.1.15; cuda", "h2", "case")
    cache.put(key, facts)
    assert cache.get(key) == facts
    (tmp_path / f"{key}.json").write_text("{not json")
    assert cache.get(key) is None
    PlanCache(None).put(key, facts)
    assert PlanCache(None).get(key) is None
