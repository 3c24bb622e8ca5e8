"""Search-space expansion, pruning and the seed's three bad spaces (section 5.3), over the built-in
GEMM as the suites declare it (tests/builtin_gemm.py: its footprint, validation and warp tiles)."""

import pytest

from tlbench.suites.gemm.sweep import axes_configs

from builtin_gemm import FAMILY, config, gemm_case, problem
from tlbench.backends.nvidia import limits as nvidia
from tlbench.harness.core.space import diagnose, inert_keys, probe_pairs, prune

FP16_4K = FAMILY.problem(problem(4096, 4096, 4096, "float16"))


def nvidia_reject(arch="sm_90a", capacity=None):
    return lambda axes: nvidia.rejection(gemm_case(FP16_4K.values, axes.values), arch, capacity)


def configs_of(**axes):
    return [FAMILY.config(c) for c in axes_configs(**axes)]


def axis(config, key):
    return config.values[key]


SEED_AXES = dict(block_M=(64, 128, 256), block_N=(64, 128, 256), block_K=(16, 32, 64), num_stages=(1, 2, 3, 4), threads=(128, 256))


def test_seed_grid_216_candidates_214_within_228_kib():
    configs = configs_of(**SEED_AXES)
    assert len(configs) == 216
    diag = diagnose(FP16_4K, configs, "nvidia", nvidia_reject(capacity=228 * 1024))
    assert (diag.requested, diag.legal) == (216, 214)
    _, rejected = prune(configs, nvidia_reject(capacity=228 * 1024))
    tiles = {tuple(axis(r.config, k) for k in ("block_M", "block_N", "block_K", "num_stages")) for r in rejected}
    assert tiles == {(256, 256, 64, 4)}
    assert {axis(r.config, "threads") for r in rejected} == {128, 256}
    assert all(r.kind == "budget" and r.reason == "shared.dyn needs 262144 B, limit 233472 B (A_shared + B_shared 4 x 65536 B)" for r in rejected)
    assert diag.verdict == "ok"


def test_all_infeasible_space_is_named():
    configs = configs_of(block_M=(256,), block_N=(256,), block_K=(64,), num_stages=(4, 5))
    diag = diagnose(FP16_4K, configs, "nvidia", nvidia_reject())
    assert diag.legal == 0 and diag.verdict.startswith("all infeasible")
    assert diag.rejected_by_kind == {"budget": 2}


def test_degenerate_space_is_named():
    configs = configs_of(block_M=(128,), block_N=(128,), block_K=(32, 1000), num_stages=(2,))
    diag = diagnose(FP16_4K, configs, "nvidia", nvidia_reject())
    assert diag.legal == 1 and diag.verdict.startswith("degenerate (one legal config)")
    assert diag.rejected_by_kind == {"divisibility": 1}


def test_warp_partition_rule_matches_tilelang_on_hopper():
    # tilelang 0.1.15: "No valid warp partition for T.gemm (Warp-Group MMA): M=128, N=256
    # cannot be evenly covered by 12 warps" (tests/test_nvidia_plan.py pins the real error)
    configs = [FAMILY.config(config(128, 256, 64, 384, "auto", 3)), FAMILY.config(config(128, 256, 64, 256, "auto", 3))]
    legal, rejected = prune(configs, nvidia_reject())
    assert [axis(c, "threads") for c in legal] == [256]
    assert rejected[0].kind == "warp-partition" and "128x256 over 12 warps" in rejected[0].reason


def test_inert_key_is_found_by_comparing_generated_code():
    configs = configs_of(block_M=(128,), block_N=(128,), block_K=(32,), num_stages=(2, 3), threads=(128, 256))
    # a fake "compiler" whose output ignores threads: the probe must say so
    source = lambda c: f"kernel tile={axis(c, 'block_M')}x{axis(c, 'block_N')} stages={axis(c, 'num_stages')}"  # noqa: E731
    assert inert_keys(configs, source) == ["threads"]
    assert set(probe_pairs(configs)) == {"threads", "num_stages"}


@pytest.mark.parametrize("backend", ["nvidia", "ascend"])
def test_inert_key_with_the_real_compiler(backend, nvidia_sm90a, ascend):
    pytest.importorskip("tilelang")
    chosen = {"nvidia": nvidia_sm90a, "ascend": ascend}[backend]
    configs = configs_of(block_M=(128,), block_N=(128,), block_K=(32,), num_stages=(2,), threads=(128,), stage_output=(False, True))
    inert = inert_keys(configs, lambda c: chosen.kernel_source(gemm_case(FP16_4K.values, c.values)))
    # staging the output through shared memory changes CUDA code; Ascend stores L0C via Fixpipe
    assert inert == ([] if backend == "nvidia" else ["stage_output"])
