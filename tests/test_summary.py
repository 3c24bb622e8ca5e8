"""The ten-second summary (harness/results/report/summary.py) and where the terminal puts it.

Records are built the way the plugin writes them; what is pinned is the summary's own
logic: the best cell marked, the vendor ratio as vendor time / kernel time, % of peak only
when a record carries it, model numbers labelled, skips folded by reason with a count.
"""

import pytest

from tlbench.harness.results.report.summary import summary_lines

from test_plugin import CONFTEST, SUITE

PROBLEM = {"M": 1024, "N": 1024, "K": 1024, "dtype": "float16"}


def _config(stages, form="auto", tile=(128, 128, 32, 128)):
    m, n, k, t = tile
    return {"block_M": m, "block_N": n, "block_K": k, "threads": t, "loop_form": form, "num_stages": stages}


def _device(stages, median, form="auto", **extra):
    cfg = _config(stages, form)
    return {
        "backend": "gpu", "kind": "device", "case_id": f"gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-{form}-s{stages}",
        "kernel": "gemm", "problem": PROBLEM, "config": cfg, "summary": {"median": median, "status": "clean"},
        "throughput": {"tflops": 2.0 / median / 1e3}, "status": "timed", **extra,
    }


VENDOR = {"backend": "gpu", "kind": "device", "case_id": "gemm-1024x1024x1024-f16-vendor", "kernel": "gemm",
          "problem": PROBLEM, "config": None, "summary": {"median": 0.0010}, "status": "timed"}


def test_device_block_marks_the_best_and_gives_the_vendor_ratio():
    lines = summary_lines([_device(2, 0.0020), _device(3, 0.0012), VENDOR])
    text = "\n".join(lines)
    assert lines[0] == "gpu · gemm-1024x1024x1024-f16"
    assert "1.200ms*" in text and "2.000ms*" not in text
    assert "0.833x the vendor item (1.000 ms)" in text  # 1.0 ms / 1.2 ms
    assert "peak unknown" in text


def test_a_named_variant_of_the_same_tile_gets_its_own_row():
    """Two kernel bodies with the same tile and loop form (e.g. a portable and a target-specific
    one) must not share a row: one cell would hide the other's time."""
    portable, specific = _device(1, 0.0018), _device(1, 0.0017)
    portable["config"] = {**portable["config"], "body": "shared"}
    specific["config"] = {**specific["config"], "body": "hopper"}
    specific["case_id"] += "-hopper"
    text = "\n".join(summary_lines([portable, specific, VENDOR]))
    assert "128x128x32 t128 shared" in text and "128x128x32 t128 hopper" in text
    assert "1.800ms" in text and "1.700ms*" in text


def test_pct_of_peak_is_shown_when_the_record_has_it_and_flags_are_counted():
    best = _device(3, 0.0012, pct_of_peak=61.25)
    best["summary"]["status"] = "DRIFT"
    text = "\n".join(summary_lines([_device(2, 0.0020), best, VENDOR]))
    assert "61.2% of peak" in text and "peak unknown" not in text
    assert "flags: 1 DRIFT" in text and "1.200ms*!" in text


def test_model_block_is_labelled_and_skips_fold_by_reason():
    def compiled(stages, ii, cycles):
        return {"backend": "npu", "kind": "compile", "case_id": f"gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s{stages}",
                "kernel": "gemm", "problem": PROBLEM, "config": _config(stages), "summary": {"median": 1.0}, "status": "timed",
                "plan": {"pipeline": {"loop_ii_cycles_model": ii}, "schedule_model": {"modeled_cycles_per_core": cycles}}}

    skipped = [{"backend": "npu", "kind": "device", "status": "skipped", "reason": "no NPU", "case_id": f"x{i}"} for i in range(3)]
    lines = summary_lines([compiled(1, 490, 9000), compiled(2, 245, 5000), *skipped], {"npu": 2.5})
    text = "\n".join(lines)
    assert "K-loop II, cycles (model)" in text and "245*" in text and "490*" not in text
    assert "5000 modeled cycles per core (model, not a time)" in text
    assert "3 device items skipped: no NPU" in lines
    assert lines[-1].startswith("setup (each backend's first compile, untimed") and "npu 2.500 s" in lines[-1]


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fake=SUITE)
    return pytester


def test_the_terminal_ends_with_the_summary_and_hides_the_table_unless_verbose(suite):
    quiet = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only")
    quiet.assert_outcomes(passed=4, failed=3, skipped=2)
    out = quiet.stdout.str()
    tail = out[out.index("tlbench summary"):]
    assert "fake · tile-1024x1024x1024-f16" in tail and "the vendor item" in tail
    assert "kind  " not in out  # the per-item table header: only with -v
    assert "Name (time in" not in out  # pytest-benchmark's own table: only with -v
    assert "Benchmark fixture was not used" not in out
    verbose = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only", "-v")
    text = verbose.stdout.str()
    assert text.index("tlbench: every item") < text.index("tlbench summary")
    assert "Name (time in" in text


def test_the_results_file_is_named_when_the_table_is_off(suite):
    result = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only", "--benchmark-json=out.json")
    out = result.stdout.str()
    assert "[tlbench] results: out.json (pytest-benchmark's per-item table: -v)" in out
    assert "Name (time in" not in out and (suite.path / "out.json").exists()
    compared = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--benchmark-only",
                               "--benchmark-json=again.json", "--benchmark-compare=out.json",  # the table carries the comparison
                               "-W", "ignore::pytest_benchmark.logger.PytestBenchmarkWarning")  # "machine_info is different": not ours
    assert "Name (time in" in compared.stdout.str()


def test_a_memory_bound_best_is_read_in_bytes_per_second_against_the_bandwidth():
    roof = {"bound": "memory", "bandwidth_tbps": 4.0, "origin": "calibrated"}
    kernel = _device(3, 0.002, throughput={"tflops": 0.5, "gbps_compulsory": 3000.0}, roofline=roof)
    text = "\n".join(summary_lines([kernel, VENDOR]))
    assert "3000 GB/s" in text and "75.0% of the calibrated memory bandwidth (4.00 TB/s)" in text
    assert "TFLOP/s" not in text


def test_a_memory_bound_best_is_also_read_against_the_calibrated_copy():
    roof = {"bound": "memory", "bandwidth_tbps": 4.8, "origin": "datasheet"}
    calibrated = {"status": "ok", "bound": "memory", "bandwidth_tbps": 4.0, "origin": "calibrated"}
    kernel = _device(3, 0.002, throughput={"tflops": 0.5, "gbps_compulsory": 3600.0}, roofline=roof,
                     roofline_calibrated=calibrated)
    text = "\n".join(summary_lines([kernel, VENDOR]))
    assert "75.0% of the datasheet memory bandwidth (4.80 TB/s), 90.0% of the calibrated copy (4.00 TB/s)" in text
    other = _device(3, 0.002, throughput={"tflops": 0.5, "gbps_compulsory": 3600.0}, roofline=roof,
                    roofline_calibrated={"status": "other device", "device": "X", "profile_device": "Y"})
    assert "calibrated copy" not in "\n".join(summary_lines([other, VENDOR]))


def test_a_described_kernels_best_by_the_model_names_its_stage():
    """A kernel from the generic path (its config holds its axes only) is named by its stage."""
    rec = {"backend": "npu", "kind": "compile", "family": "mykernel", "family_described": True,
           "case_id": "mykernel-M64-block_M64-s3", "problem": {"M": 64}, "config": {"block_M": 64, "num_stages": 3},
           "plan": {"pipeline": {"loop_ii_cycles_model": 341}, "schedule_model": {"modeled_cycles_per_core": 22506}},
           "status": "compiled"}
    text = "\n".join(summary_lines([rec]))
    assert "best by the model:" in text and " s3, 22506 modeled cycles per core" in text, text


def _described_compile(config, plan, **extra):
    return {"backend": "nvidia", "kind": "compile", "kernel": "topk", "family": "topk", "family_described": True,
            "case_id": "topk-M64-" + "-".join(f"{k}{v}" for k, v in config.items()), "problem": {"M": 64},
            "config": config, "summary": {"median": 0.5}, "status": "timed", "plan": plan, **extra}


def _ws_plan(versions, built):
    names = ("A_shared", "B_shared", "C_shared")
    return {"pipeline": {"kind": "warp-specialized"}, "features": {"built": built},
            "buffers": [{"name": n, "scope": "shared.dyn", "versions": v} for n, v in zip(names, versions)]}


def test_compile_words_match_what_the_records_say_was_built_and_shown():
    """A kernel with no pipeline-depth axis is shown in a column "as written" (not "none", which
    read as the pipeline chosen); the legend names the buffers the cells count; "built" is
    read from each record."""
    built = [_described_compile({"threads": t}, _ws_plan((2, 2, 1), True)) for t in (128, 256)]
    text = "\n".join(summary_lines(built))
    assert "pipeline chosen  as written" in text and " none" not in text
    assert "ws v2/2/1" in text
    assert "ws = warp-specialized, sw = software pipeline, - = no pipeline; vN/N/N = buffer versions of A_shared/B_shared/C_shared" in text
    assert "vA/B" not in text
    assert "no device timing: compile items only (cold lowering + build, slowest" in text
    half = [built[0], _described_compile({"threads": 256}, _ws_plan((2, 2, 1), False))]
    assert "(cold lowering; 1 of 2 built, slowest" in "\n".join(summary_lines(half))
    none = [_described_compile({"threads": 256}, _ws_plan((3, 3), False))]
    text = "\n".join(summary_lines(none))
    assert "(cold lowering, no build, slowest" in text and "vN/N = buffer versions of A_shared/B_shared" in text


def test_a_problem_whose_device_items_all_failed_says_so():
    compiled = _described_compile({"threads": 128}, _ws_plan((2, 2), True))
    failed = [{"backend": "nvidia", "kind": "device", "case_id": f"topk-M64-threads{t}", "family": "topk",
               "family_described": True, "problem": {"M": 64}, "config": {"threads": t}, "status": "failed",
               "stage": "check", "error": "wrong result"} for t in (128, 256)]
    text = "\n".join(summary_lines([compiled, *failed]))
    assert "no device timing: all 2 device items failed (below); compile items (cold lowering + build" in text
    assert "compile items only" not in text
    assert "FAILED device topk-M64-threads128 and 1 more item(s): [check]: wrong result" in text  # same words: one line
