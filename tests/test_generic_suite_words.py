"""What ``kernel_sweep`` gives every suite that the built-in GEMM suites needed, without
compiling anything: a suite's own ids and labels (kept in its records, read back without the
suite), the ``loop_form`` axis, vendor items per dialect and per named library, ``pruned``
for a predicted refusal, per-scope configs per dialect, ``mma_tiles`` warp-partition pruning
and a footprint that names its buffers."""

import json

import pytest

from tlbench import kernel_sweep, pruned
from tlbench.harness.core.backend_api import SuiteCodeError
from tlbench.harness.core.budget import Scope
from tlbench.harness.core.cases import Case
from tlbench.harness.core.described import DescribedFamily
from tlbench.harness.core.family import FamilyCatalog
from tlbench.harness.core.record import BenchItem
from tlbench.harness.core.record_reader import RecordReader


def body(M, K, block_M, block_K, threads, loop_form, num_stages):  # never called here: nothing compiles
    raise AssertionError("not built in this test")


def worded(**extra):
    return kernel_sweep(
        "mm", body,
        sizes={"M": 1024, "K": 512},
        configs=[{"block_M": 128, "block_K": 32, "threads": 128, "loop_form": "auto", "num_stages": 3},
                 {"block_M": 128, "block_K": 32, "threads": 128, "loop_form": "manual", "num_stages": None}],
        inputs=lambda device, M, K: [],
        problem_id=lambda M, K: f"mm-{M}x{K}",
        config_id=lambda block_M, block_K, threads, loop_form, num_stages: f"b{block_M}x{block_K}-t{threads}-"
                  + (f"auto-s{num_stages}" if loop_form == "auto" else loop_form),
        problem_label=lambda M, K: f"{M} by {K}",
        config_label=lambda block_M, block_K, threads: f"{block_M}x{block_K} t{threads}",
        loop_trips=lambda K, block_K: K // block_K,
        module=__name__,
        **extra,
    )


def test_a_suite_words_its_own_ids_labels_and_stage_points():
    cases = worded().cases("nvidia", "full")
    assert [c.case_id for c in cases] == ["mm-1024x512-b128x32-t128-auto-s3", "mm-1024x512-b128x32-t128-manual"]
    family = cases[0].family
    assert family.problem_label(cases[0].problem) == "1024 by 512"
    points = [family.stage_point(c.config) for c in cases]
    assert [(p.tile, p.loop_id, p.loop_form, p.num_stages) for p in points] == [
        ("128x32 t128", "auto-s3", "auto", 3), ("128x32 t128", "manual", "manual", None)]
    assert family.loop_trips(cases[0].problem, cases[0].config) == 16
    assert family.parse_case_id("mm-1024x512-b128x32-t128-manual").config_id == "b128x32-t128-manual"


def test_records_keep_the_suite_words_and_read_back_without_the_suite():
    case = worded().cases("nvidia", "full")[1]
    record = json.loads(json.dumps(BenchItem("nvidia", "compile", case).describe()))
    assert record["described_as"]["problem_id"] == "mm-1024x512"
    assert record["described_as"]["config_id"] == "b128x32-t128-manual"
    read = RecordReader(FamilyCatalog()).read({**record, "samples_s": [1.0]})  # no suite, no entry point
    assert isinstance(read.family, DescribedFamily)
    assert read.problem_id == "mm-1024x512" and read.config.config_id == "b128x32-t128-manual"
    assert (read.stage.tile, read.stage.loop_id, read.stage.num_stages) == ("128x32 t128", "manual", None)
    assert read.family.problem_label(read.problem) == "1024 by 512"
    assert read.family.loop_trips(read.problem, read.config) == 16
    parts = read.family.parse_case_id("mm-1024x512-best-b128x32-t128-auto-s3")
    assert (parts.problem_id, parts.label, parts.config_id) == ("mm-1024x512", "best", "b128x32-t128-auto-s3")


def test_a_formatter_that_says_nothing_is_named():
    sweep = worded()
    family = sweep.problems[0].family
    family.words = type(family.words)(problem_id=lambda M, K: "")
    with pytest.raises(ValueError, match="problem_id.*returned ''.*non-empty string"):
        family.problem(dict(M=1, K=2)).problem_id


def test_the_loop_form_axis_names_the_loop_in_derived_ids_and_is_checked():
    sweep = kernel_sweep("k", body, sizes={"M": 64}, axes={"blk": [8], "loop_form": ["auto"], "num_stages": [2]},
                         configs=[{"blk": 8, "loop_form": "serial", "num_stages": None}], inputs=list, module=__name__)
    cases = sweep.cases("nvidia", "full")
    assert [c.case_id for c in cases] == ["k-M64-blk8-auto-s2", "k-M64-blk8-serial"]
    assert [(c.config.stage.loop_id, c.config.stage.tile) for c in cases] == [("auto-s2", "blk8"), ("serial", "blk8")]
    with pytest.raises(ValueError, match="loop_form='auto' needs num_stages"):
        kernel_sweep("k", body, sizes={"M": 64}, configs=[{"loop_form": "auto", "num_stages": None}], inputs=list)
    with pytest.raises(ValueError, match="loop_form='manual' takes no num_stages"):
        kernel_sweep("k", body, sizes={"M": 64}, configs=[{"loop_form": "manual", "num_stages": 2}], inputs=list)


def flash(q, out):
    pass


def math(q):
    return q


def test_vendor_items_per_dialect_and_per_named_library():
    sweep = kernel_sweep("k", body, sizes={"M": 64}, inputs=list, module=__name__,
                         vendor={"cuda": {"sdpa_flash": flash, "sdpa_math": math}, "ascend": math},
                         vendor_label={"sdpa_flash": "torch SDPA flash", "sdpa_math": lambda q: "math"})
    assert [v.case_id for v in sweep.vendor_cases("nvidia", "full", dialect="cuda")] == ["k-M64-sdpa_flash", "k-M64-sdpa_math"]
    assert [v.case_id for v in sweep.vendor_cases("ascend", "full", dialect="ascend")] == ["k-M64-vendor"]
    record = sweep.vendor_cases("nvidia", "full", dialect="cuda")[0].to_dict()
    assert record["library"] == "sdpa_flash"
    table = sweep.problems[0].family.vendors
    assert table.libraries("some_other_dialect") == []  # a dialect the dict does not name has no vendor item
    with pytest.raises(ValueError, match="vendor library name"):
        kernel_sweep("k", body, sizes={"M": 64}, inputs=list, vendor={"cuda": {"not ok": math}})
    with pytest.raises(ValueError, match="vendor_label names sdpa_cudnn, which no vendor library is"):
        kernel_sweep("k", body, sizes={"M": 64}, inputs=list, vendor={"cuda": {"sdpa_flash": flash}},
                     vendor_label={"sdpa_cudnn": "x"})
    with pytest.raises(ValueError, match="'out' is passed by tlbench"):
        kernel_sweep("k", body, sizes={"M": 64, "out": 1}, inputs=list)


def test_pruned_is_a_prediction_and_a_string_is_invalid():
    def validate(M, blk):
        if M % blk:
            return pruned(f"M={M} is not a multiple of blk={blk}")
        return "blk too small" if blk < 8 else None

    sweep = kernel_sweep("k", body, sizes={"M": 96}, axes={"blk": [4, 64, 48]}, inputs=list, validate=validate,
                         module=__name__)
    family = sweep.problems[0].family
    refusals = [family.validate(c.problem, c.config, "cuda") for c in sweep.cases("nvidia", "full")]
    assert [(str(r), r.kind) if r else None for r in refusals] == [
        ("blk too small", "invalid"), ("M=96 is not a multiple of blk=64", "divisibility"), None]


def test_scope_configs_per_dialect():
    sweep = kernel_sweep("k", {"cuda": body, "ascend": body}, sizes={"M": 64}, quick={"M": 128}, inputs=list,
                         configs={"cuda": [{"blk": 1}, {"blk": 2}], "ascend": [{"blk": 3}]},
                         quick_configs={"cuda": [{"blk": 2}]}, module=__name__)
    assert [c.case_id for c in sweep.cases("nvidia", "full", dialect="cuda")] == ["k-M64-blk1", "k-M64-blk2"]
    assert [c.case_id for c in sweep.cases("nvidia", "quick", dialect="cuda")] == ["k-M128-blk2"]
    assert sweep.cases("ascend", "quick", dialect="ascend") == []  # quick_configs names no ascend config
    assert [c.case_id for c in sweep.cases("ascend", "smoke", dialect="ascend")] == ["k-M64-blk3"]
    with pytest.raises(ValueError, match="quick_configs name dialect.s. npu that have no body"):
        kernel_sweep("k", {"cuda": body}, sizes={"M": 64}, inputs=list, quick_configs={"npu": []})


def test_mma_tiles_prune_a_thread_count_that_cannot_partition_them(nvidia_sm90a):
    sweep = kernel_sweep("k", body, sizes={"M": 256}, axes={"block_M": [64], "threads": [128, 96 * 2]}, inputs=list,
                         mma_tiles=lambda block_M: [(block_M, 64)], module=__name__)
    cases = sweep.cases("nvidia", "full", dialect="cuda")
    rejections = [nvidia_sm90a.rejection(c) for c in cases]
    assert rejections[0] is None
    assert rejections[1] is not None and rejections[1].kind == "warp-partition"


def test_a_footprint_names_its_buffers_and_capacity_variant():
    sweep = kernel_sweep("k", body, sizes={"M": 64}, axes={"blk": [2]}, inputs=list, module=__name__,
                         footprint=lambda blk: {"shared.ub": {"bytes": 1000 * blk, "minimum": 1000, "variant": "simt",
                                                              "buffers": [f"tile 2 x 1000 B"]}})
    case: Case = sweep.cases("ascend", "full")[0]
    scopes = [Scope("shared.ub", 192 * 1024, variants={"simt": 128 * 1024})]
    (use,) = case.family.footprint(case.problem, case.config, "ascend", scopes)
    assert (use.needed, use.minimum, use.buffers) == (2000, 1000, ("tile 2 x 1000 B",))
    assert use.capacity == 128 * 1024


def test_a_suite_callable_that_raises_is_a_suite_code_error():
    sweep = kernel_sweep("k", body, sizes={"M": 64}, inputs=list, flops=lambda M: 1 // 0, module=__name__)
    problem = sweep.problems[0]
    with pytest.raises(SuiteCodeError, match="flops"):
        problem.family.flops(problem)


def test_body_modules_add_to_what_the_kernel_hash_covers(tmp_path):
    from tlbench.harness.core.kernel_traits import kernel_hash, kernel_traits

    helper = tmp_path / "installed_body.py"
    helper.write_text("X = 1\n")
    sweep = kernel_sweep("k", body, sizes={"M": 64}, axes={"blk": [1, 2]}, inputs=list, module=__name__,
                         body_modules=lambda blk: [str(helper)] if blk == 2 else [])
    one, two = sweep.cases("nvidia", "full")
    assert kernel_traits(one, "cuda").body_modules == (__file__,)
    assert kernel_traits(two, "cuda").body_modules == (__file__, str(helper))
    before = kernel_hash(two, "cuda")
    helper.write_text("X = 2\n")  # an edit to the named module changes the hash of the case it names
    assert kernel_hash(two, "cuda") != before
