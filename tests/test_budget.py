"""On-chip budget: the bytes, the capacities and the messages users see (the built-in GEMM's
footprint, suites/gemm/sweep.py, against the real backends' scopes)."""

import pytest

from tlbench.backends.ascend import limits as ascend
from tlbench.backends.nvidia import limits as nvidia
from tlbench.harness.core import budget

from builtin_gemm import FAMILY, config, gemm_case, problem

FP16_8K = problem(8192, 8192, 8192, "float16")


def check(sizes, axes, scopes):
    dialect = "cuda" if scopes[0].name == "shared.dyn" else "ascend"
    return budget.check(gemm_case(sizes, axes), scopes, dialect)


def nvidia_footprint(sizes, axes, arch):
    return FAMILY.footprint(FAMILY.problem(sizes), FAMILY.config(axes), "cuda", nvidia.scopes(arch))


def ascend_footprint(sizes, axes):
    return FAMILY.footprint(FAMILY.problem(sizes), FAMILY.config(axes), "ascend", ascend.scopes())


def test_hopper_256x256x64_four_stages_is_over_by_the_exact_bytes():
    verdict = check(FP16_8K, config(256, 256, 64, 256, "auto", 4), nvidia.scopes("sm_90a"))
    assert not verdict.fits
    assert verdict.reason == "shared.dyn needs 262144 B, limit 232448 B (A_shared + B_shared 4 x 65536 B)"


def test_three_stages_of_the_same_tile_fit():
    assert check(FP16_8K, config(256, 256, 64, 256, "auto", 3), nvidia.scopes("sm_90a")).fits


@pytest.mark.parametrize(
    "loop_form, num_stages, versions", [("auto", 0, 1), ("auto", 1, 1), ("auto", 2, 2), ("auto", 4, 4), ("manual", None, 2), ("serial", None, 1)]
)
def test_nvidia_footprint_follows_buffer_versions(loop_form, num_stages, versions):
    (use,) = nvidia_footprint(FP16_8K, config(128, 128, 32, 128, loop_form, num_stages), "sm_80")
    assert use.needed == versions * (128 + 128) * 32 * 2


def test_unknown_arch_names_the_known_ones():
    with pytest.raises(ValueError, match="sm_90a"):
        nvidia_footprint(FP16_8K, config(128, 128, 32), "sm_999")


def test_ascend_l1_over_capacity_with_even_one_version():
    # 512x256x512 bf16: A 512 KiB + B 256 KiB per version > 512 KiB of L1
    verdict = check(problem(4096, 4096, 4096, "bfloat16"), config(512, 256, 512, 128, "auto", 2), ascend.scopes())
    assert not verdict.fits
    assert "shared.l1 needs 786432 B, limit 524288 B" in verdict.reason


def test_ascend_deep_pipeline_alone_is_not_a_reason_to_skip():
    # two versions would need 1 MiB of L1, but Z3 picks one: tilelang compiles this
    # (tests/test_ascend_schedule.py pins that against the real scheduler)
    verdict = check(problem(4096, 4096, 4096, "bfloat16"), config(256, 256, 512, 128, "auto", 2), ascend.scopes())
    l1 = next(u for u in verdict.uses if u.scope == "shared.l1")
    assert l1.needed == 2 * 512 * 1024 and verdict.fits


def test_ascend_oversized_l0c_accumulator_is_caught():
    verdict = check(problem(4096, 4096, 4096, "bfloat16"), config(256, 512, 64, 128, "auto", 2), ascend.scopes())
    assert not verdict.fits
    assert verdict.reason == "shared.l0c needs 524288 B, limit 262144 B (C_l0c 524288 B float32)"


def test_relu_epilogue_adds_the_vector_ub_half_tile():
    relu = problem(512, 512, 1024, "bfloat16", out_dtype="float32", epilogue="relu")
    uses = {u.scope: u for u in ascend_footprint(relu, config(128, 128, 128, 128, "auto", 2))}
    assert uses["shared.ub"].needed == 64 * 128 * 4
    assert uses["shared.ub"].capacity == ascend.UB_WITH_SIMT


def test_staged_output_reuses_the_operand_buffers():
    # tilelang merges shared allocations by liveness: 128x256x64 s4 + a 64 KiB staged tile
    # lowers to 196608 B of dynamic shared memory (measured), the larger of the two
    (use,) = nvidia_footprint(FP16_8K, config(128, 256, 64, 256, "auto", 4, stage_output=True), "sm_90a")
    assert use.needed == 196608
    (small,) = nvidia_footprint(FP16_8K, config(64, 64, 16, 128, "auto", 1, stage_output=True), "sm_90a")
    assert small.needed == 64 * 64 * 2


def test_persistent_kernel_keeps_operands_and_staged_output_live_together():
    # H200, tilelang 0.1.15: the persistent (132 blocks) 128x256x64 s4 kernel with a staged
    # output asked for 262144 B at launch: "Failed to set the allowed dynamic shared memory
    # size to 262144" (results/h200-tile-sweep/focus-8192.json)
    persistent = config(128, 256, 64, 256, "auto", 4, num_cores=132, group_m=8, stage_output=True)
    verdict = check(FP16_8K, persistent, nvidia.scopes("sm_90a"))
    assert not verdict.fits and verdict.reason == ("shared.dyn needs 262144 B, limit 232448 B "
                                                   "(A_shared + B_shared 4 x 49152 B, C_shared 65536 B)")
