"""One flash-attention forward body, lowered for real by tilelang for sm_90a and Ascend 950.

suites/flash_attention/body.py is the only body text; the two dialects beside it supply the
target pieces, and build.py picks the body a config builds per dialect.  Lowering is the expensive part on the 2-core box, so one config is lowered
per target (the suites lower the rest); the manual schedule and the refusals are checked
without lowering.
"""

import inspect
from dataclasses import asdict

import pytest

tilelang = pytest.importorskip("tilelang")
import tvm  # noqa: E402

import tlbench.backends.ascend.schedule  # noqa: E402,F401  (Z3 recorders before any Ascend lowering)
from tlbench.suites.flash_attention import body as fa_module  # noqa: E402
from tlbench.suites.flash_attention.body import build, manual_schedule  # noqa: E402
from tlbench.suites.flash_attention.build import fa_cuda  # noqa: E402
from tlbench.suites.flash_attention.dialect_ascend import ASCEND_FA_DIALECT  # noqa: E402
from tlbench.suites.flash_attention.dialect_cuda import CUDA_FA_DIALECT  # noqa: E402

from tlbench.backends.ascend.schedule import lower_with_schedule  # noqa: E402
from tlbench.suites.flash_attention.problem import FaConfig, FaProblem  # noqa: E402

PROBLEM = FaProblem(batch=1, heads=2, seq_q=512, seq_k=512, dim=128, dtype="bfloat16")


def suite_case(problem: FaProblem, config: FaConfig):
    """The case the flash-attention suites make of (problem, config): declared through
    ``kernel_sweep`` with the suites' own arguments (suites/flash_attention/sweep.py)."""
    from tlbench.suites.flash_attention.sweep import FA

    from tlbench import kernel_sweep

    sweep = kernel_sweep("flash_attention", **FA, sizes=[asdict(problem)], configs=[asdict(config)], module=__name__)
    (case,) = sweep.cases("nvidia", "full")
    return case


def test_identical_body_lowers_for_both_targets_with_the_kv_loop_scheduled():
    from tilelang.ascend.target import _make_ascend_target

    config = FaConfig(block_M=128, block_N=128, num_stages=2)
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        cuda = tilelang.lower(build(PROBLEM, config, CUDA_FA_DIALECT), target=target)
    assert "__global__" in cuda.kernel_source
    ascend, facts = lower_with_schedule(build(PROBLEM, config, ASCEND_FA_DIALECT), _make_ascend_target())
    assert "__mix__" in ascend.kernel_source  # Cube (QK^T, PV) and Vector (softmax) in one kernel
    kv_loop = facts.loops[0]
    assert kv_loop["trip_count"] == PROBLEM.seq_k // config.block_N
    assert kv_loop["num_stages"] == 2
    kinds = [t["kind"] for t in kv_loop["tasks"]]
    assert kinds.count("gemm") == 2
    assert "vector (SimdVF)" in kinds  # the softmax and exp regions are named, not by their first intrinsic
    assert kv_loop["ii"] > 0 and facts.missing is None


def test_manual_form_puts_the_two_global_loads_one_iteration_ahead_on_both_targets():
    config = FaConfig(block_M=128, block_N=128, num_stages=None, loop_form="manual")
    for dialect in (CUDA_FA_DIALECT, ASCEND_FA_DIALECT):
        stage, order = manual_schedule(PROBLEM, config, dialect)
        assert stage[:2] == [0, 0] and set(stage[2:]) == {1}, dialect.name
        assert order == list(range(len(stage)))


def test_the_body_has_no_target_branches():
    source = inspect.getsource(fa_module.build_flash_attention)
    for word in ("ascend", "cuda", "alloc_l1", "alloc_shared", "alloc_fragment", "alloc_l0c", "dual_copy", "SimdVF", "exp2"):
        assert word not in source, word
    assert "T.Pipelined(kv_trips(tile), num_stages=num_stages, annotations=loop_annotations)" in source


def test_partial_tiles_are_refused_with_the_length_named():
    with pytest.raises(ValueError, match="seq_k=1000 is not a multiple of block_N=128"):
        build(FaProblem(1, 1, 1024, 1000), FaConfig(), CUDA_FA_DIALECT)


def test_manual_needs_its_schedule():
    with pytest.raises(ValueError, match="manual_schedule"):
        fa_module.build_flash_attention(PROBLEM, FaConfig(loop_form="manual", num_stages=None), CUDA_FA_DIALECT)


def test_causal_lowers_for_sm90a_and_a_cuda_layout_conflict_is_refused_in_tilelangs_words():
    """Causal on Ascend lowers too (T.MixedKernel + SimtVF mask; about 30 s on a 2-core box,
    checked by hand, not here).  block_M=256 on 256 threads is refused by layout inference:
    the backend hands tilelang's words on, and the runner turns them into a failed item."""
    from tlbench.backends.nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions, CompileError

    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    causal = FaProblem(batch=1, heads=2, seq_q=512, seq_k=512, dim=128, causal=True)
    with target:
        assert "__global__" in tilelang.lower(build(causal, FaConfig(128, 128, 2, threads=256), CUDA_FA_DIALECT), target=target).kernel_source
    backend = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))
    with pytest.raises(CompileError, match="Layout infer conflict between S_vec and P_vec"):
        backend.compile(suite_case(PROBLEM, FaConfig(256, 128, 2, threads=256)), cold=True)


@pytest.mark.parametrize("body,block_N,stages", [("hopper_ws", 176, 2), ("hopper_ws_ov", 128, 3)])
def test_the_warp_specialized_hopper_body_lowers_for_sm90a_with_its_own_schedule(body, block_N, stages):
    """suites/flash_attention/hopper_ws.py: a TMA producer warp group and two wgmma consumer
    groups, S and PV wgmmas issued back to back and waited for separately (wait_group 1,
    then 0), ping-pong through named barriers 8/9 for hopper_ws; a partial last key tile
    (8192 = 46 x 176 + 96) is masked.  Lowering only (nvcc builds it in ~15 s: by hand)."""
    problem = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, dim=128, dtype="bfloat16")
    config = FaConfig(128, block_N, stages, threads=384, body=body)
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        src = tilelang.lower(fa_cuda(**asdict(problem), **asdict(config)), target=target).kernel_source
    assert "__launch_bounds__(384, 1)" in src
    assert "warpgroup_reg_alloc<240>" in src and "warpgroup_reg_dealloc<24>" in src
    assert "wait_wgmma<1>" in src and "tma_load(K_desc" in src and "wgmma_rs<" in src
    assert ("__named_barrier_arrive" in src) == (body == "hopper_ws")
    steady = 8192 // block_N - 1  # 128: 63 steps; 176: 45 unmasked steps, then the masked tail step
    assert f"k_1 < {steady};" in src


def test_the_warp_specialized_body_walks_query_tiles_with_num_cores_blocks():
    """num_cores=132: 132 blocks walk the 2048 query tiles (16 or 15 each); the K/V pipeline's
    barrier count runs on across a block's tiles (t * 43 + k), Q_s goes back to the producer
    (q_empty) once the last QK wgmma has read it, O leaves from registers; causal is refused."""
    problem = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, dim=128, dtype="bfloat16")
    config = FaConfig(128, 192, 2, threads=384, body="hopper_ws", num_cores=132)
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        src = tilelang.lower(fa_cuda(**asdict(problem), **asdict(config)), target=target).kernel_source
    assert "for (int t = 0; t < ((2179 - ((int)blockIdx.x)) / 132); ++t)" in src  # ceil((2048 - bid) / 132) tiles
    assert "k_empty[(((t * 43) + k) & 1)].wait(" in src and "q_empty[0].arrive();" in src
    assert "q_empty[0].wait(((t & 1) ^ 1));" in src and "Q_s)[" in src
    assert src.count("tma_load(Q_desc") == 1 and "tma_store" not in src  # O from registers, not staged in Q_s
    causal = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, dim=128, dtype="bfloat16", causal=True)
    with pytest.raises(ValueError, match="non-causal problems only"):
        fa_cuda(**asdict(causal), **asdict(config))


TILE = "(((int)blockIdx.x) & 31)"  # the query tile of 32 at S=4096, as tilelang writes it


@pytest.mark.parametrize("block_N, trips, unmasked, masked_end", [
    # 128: t + 1 tiles, t - 1 unmasked steps, then one masked step (tilelang writes t as min(1, t) + max(t - 1, 0))
    (128, f"({TILE} + 1)", f"max(({TILE} - 1), 0)", f"(min(1, {TILE}) + max(({TILE} - 1), 0))"),
    # 192: ceil((t + 1) * 128 / 192) tiles; the steps from the tile holding row t * 128 on are masked
    (192, f"((({TILE} * 2) + 4) / 3)", f"max(((({TILE} * 128) / 192) - 1), 0)", f"(((({TILE} * 2) + 4) / 3) - 1)"),
])
def test_the_warp_specialized_body_stops_at_the_diagonal_when_causal(block_N, trips, unmasked, masked_end):
    """Causal hopper_ws: the producer runs ceil((t + 1) * 128 / block_N) key tiles for query tile t,
    the consumers the tiles left of the tile's first row unmasked, then the rest masked against
    the diagonal (tile 0 too).  Lowering only; nvcc builds both (about 10 s each, by hand)."""
    problem = FaProblem(batch=2, heads=16, seq_q=4096, seq_k=4096, dim=128, dtype="bfloat16", causal=True)
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        src = tilelang.lower(fa_cuda(**asdict(problem), **asdict(FaConfig(128, block_N, 2, threads=384, body="hopper_ws"))),
                             target=target).kernel_source
    assert f"for (int k = 0; k < {trips}; ++k)" in src  # the producer
    assert f"for (int k_1 = 0; k_1 < {unmasked}; ++k_1)" in src  # unmasked steps
    assert f"for (int k_2 = {unmasked}; k_2 < {masked_end}; ++k_2)" in src  # masked steps
    assert src.count("-CUDART_INF_F;") >= 2  # tile 0's mask and the masked steps'
    assert "__named_barrier_arrive" in src and "wait_wgmma<1>" in src


def test_fast_math_reaches_nvcc_as_use_fast_math_and_only_there(monkeypatch):
    """``fast_math=True`` goes to ``tilelang.compile`` as ``tl.enable_fast_math``, which
    tilelang's own nvcc step turns into ``--use_fast_math``: through the backend's real compile
    path (lowering, codegen, tilelang's nvcc callback), with nvcc itself replaced by a recorder.
    The CUDA handed to nvcc is the same either way: the flag is the whole difference."""
    import shutil

    from tilelang.cache.cuda_binary_cache import CUDABinaryCache
    from tilelang.contrib import nvcc

    from tlbench.backends.nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions, CompileError

    calls: list[tuple[str, list[str]]] = []

    class Recorded(Exception):
        pass

    def fake_nvcc(code, target_format=None, arch=None, options=None, **kw):
        calls.append((code, list(options or [])))
        raise Recorded("nvcc was called")

    monkeypatch.setattr(nvcc, "compile_cuda", fake_nvcc)
    monkeypatch.setattr(CUDABinaryCache, "load", classmethod(lambda cls, *a, **k: None))
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: "/usr/local/cuda/bin/nvcc" if name == "nvcc" else real_which(name, *a, **k))
    backend = NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))
    problem = FaProblem(batch=1, heads=1, seq_q=128, seq_k=256, dim=64, dtype="bfloat16")
    for fast_math in (False, True):
        with pytest.raises(CompileError, match="nvcc was called"):
            backend.compile(suite_case(problem, FaConfig(128, 64, 2, threads=128, fast_math=fast_math)), cold=True)
    (plain_code, plain_opts), (fm_code, fm_opts) = calls
    assert "--use_fast_math" not in plain_opts and "--use_fast_math" in fm_opts
    assert [o for o in fm_opts if o != "--use_fast_math"] == plain_opts
    assert plain_code == fm_code


def test_kernel_source_names_fast_math_so_the_inert_key_probe_tells_the_builds_apart(monkeypatch):
    """The lowered CUDA of a fast_math config is byte-identical to the plain one; the backend's
    kernel_source (what the inert-key probe compares) lowers under the same pass configs and
    names the nvcc flag under the source."""
    from types import SimpleNamespace

    import tlbench.backends.nvidia.backend as nv
    import tlbench.backends.gpu.plan as nv_plan
    from tlbench.harness.core.backend_api import BackendOptions

    seen = []

    def fake_lower(func, target, pass_configs=None, shape_values=None):
        seen.append(pass_configs)
        return SimpleNamespace(kernel_source="__global__ void k() {}"), None

    monkeypatch.setattr(nv_plan, "lower_with_plan", fake_lower)  # the backend imports it where it lowers
    monkeypatch.setattr(nv.NvidiaBackend, "_build", lambda self, case: None)
    backend = nv.NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))
    plain = backend.kernel_source(suite_case(PROBLEM, FaConfig(128, 128, 2, threads=256)))
    fm = backend.kernel_source(suite_case(PROBLEM, FaConfig(128, 128, 2, threads=256, fast_math=True)))
    assert plain == "__global__ void k() {}" and fm != plain and "--use_fast_math" in fm
    assert seen == [None, {"tl.enable_fast_math": True}]
