"""``tlbench report --stages``: the stage report and its space-time PNGs, on real runs.

Fixtures: ``h200-stages-smoke.json`` (an H200 device run of the stage suite, 1024^3) and
``ascend-stages.json`` (a CPU Ascend compile run of the same suite, 1024^3 and 8192^3:
EstimateLatency + Z3 schedules, model cycles).  No wall-clock thresholds: every number
checked is read from those files or derived from them.
"""

from __future__ import annotations

import copy
import json
import re
import struct
from pathlib import Path

import pytest

from tlbench.backends.ascend import schedule_figure
from tlbench.backends.ascend.traits import TRAITS as ASCEND_TRAITS
from tlbench.harness.analysis import fit_plot
from tlbench.harness.analysis import stage_report
from tlbench.harness.core.record import records_of

FIXTURES = Path(__file__).resolve().parent / "fixtures"
H200 = FIXTURES / "h200-stages-smoke.json"
ASCEND = FIXTURES / "ascend-stages.json"
TILES = {"128x128x32 t128", "128x256x64 t256"}


@pytest.fixture(scope="module")
def h200_doc():
    return json.loads(H200.read_text())


@pytest.fixture(scope="module")
def ascend_doc():
    return json.loads(ASCEND.read_text())


@pytest.fixture(scope="module")
def h200(h200_doc):
    return stage_report.build_stage_report(h200_doc)


@pytest.fixture(scope="module")
def ascend(ascend_doc):
    return stage_report.build_stage_report(ascend_doc)


def _group(report, problem, tile):
    return next(g for g in report.groups if g.problem.startswith(problem) and g.tile == tile)


def _auto_times(group, attr):
    return {r.num_stages: getattr(r, attr) for r in group.rows if r.loop_form == "auto"}


def _png_size(path) -> tuple[int, int]:
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# --------------------------------------------------------------------------- NVIDIA


def test_h200_report_has_every_variant_of_both_tiles(h200):
    assert {g.tile for g in h200.groups} == TILES
    for group in h200.groups:
        assert group.backend == "nvidia" and group.basis == "device"
        assert [r.label for r in group.rows] == ["0", "1", "2", "3", "4", "manual", "serial"]
        assert all(r.measured_s and r.modeled_cycles is None for r in group.rows)  # never mixed
    assert h200.vendors >= 1 and not h200.ignored  # the vendor item is each group's reference, not a left-out item
    assert all(g.vendor_s and g.vendor_case.endswith("vendor") for g in h200.groups)


def test_h200_predicted_vs_measured_per_stage(h200):
    for group in h200.groups:
        assert group.fit is not None and group.iterations == 1024 // int(group.tile.split("x")[2].split()[0])
        for row in group.rows:
            if row.loop_form == "auto" and row.num_stages >= 1:
                assert row.predicted > 0
                assert row.relative_error == pytest.approx((row.predicted - row.measured_s) / row.measured_s)
            else:  # num_stages=0, manual and serial are not the model's loop
                assert row.predicted is None and row.relative_error is None


def test_h200_speedups_are_over_stage_1_and_stage_0(h200):
    group = _group(h200, "1024x", "128x128x32 t128")
    t = _auto_times(group, "measured_s")
    row3 = group.row(3)
    assert row3.speedup_vs_1 == pytest.approx(t[1] / t[3])
    assert row3.speedup_vs_0 == pytest.approx(t[0] / t[3])


@pytest.mark.parametrize("tile", sorted(TILES))
def test_recommended_is_the_smallest_stage_within_2_percent_of_the_best(h200, tile):
    group = _group(h200, "1024x", tile)
    times = _auto_times(group, "measured_s")
    best = min(times.values())
    expected = min(s for s, t in times.items() if t <= 1.02 * best)
    assert group.verdict.recommended == expected
    assert f"use num_stages={expected}" in group.verdict.why
    assert group.verdict.min_sufficient_depth == group.fit.min_sufficient_depth


def test_h200_fixture_verdicts(h200):
    # the fixture's medians: 128x128x32 keeps gaining to 4 stages, 128x256x64 stops at 3
    assert _group(h200, "1024x", "128x128x32 t128").verdict.recommended == 4
    assert _group(h200, "1024x", "128x256x64 t256").verdict.recommended == 3
    # 128x256x64 needs 48 KiB a stage of Hopper's 227 KiB: at most 4 stages
    assert _group(h200, "1024x", "128x256x64 t256").verdict.budget_max_stages == 4


def test_hopper_stage_1_is_explained_in_whichever_direction_it_goes(h200, h200_doc):
    notes = " ".join(_group(h200, "1024x", "128x128x32 t128").verdict.notes)
    assert "faster than num_stages=0 with one buffer" in notes and "warp-specialized TMA" in notes

    slower = copy.deepcopy(h200_doc)  # as at 8192^3: stage 1 slower than stage 0
    recs = {b["extra_info"]["tlbench"]["case_id"]: b["extra_info"]["tlbench"] for b in slower["benchmarks"]}
    base = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s"
    recs[base + "1"]["summary"]["median"] = 1.3 * recs[base + "0"]["summary"]["median"]
    group = _group(stage_report.build_stage_report(slower), "1024x", "128x128x32 t128")
    assert any("num_stages=1 is SLOWER than num_stages=0" in n for n in group.verdict.notes)


def test_failed_items_appear_as_rows(h200_doc):
    doc = copy.deepcopy(h200_doc)
    case = "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s4"
    bench = next(b for b in doc["benchmarks"] if b["extra_info"]["tlbench"]["case_id"] == case)
    doc["benchmarks"].remove(bench)
    failed = {k: v for k, v in bench["extra_info"]["tlbench"].items() if k not in ("samples_s", "summary")}
    doc["tlbench"]["failed"] = [{**failed, "status": "failed", "stage": "launch", "error": "out of shared memory"}]
    group = _group(stage_report.build_stage_report(doc), "1024x", "128x256x64 t256")
    row = group.row(4)
    assert row.status.startswith("failed (launch)") and row.measured_s is None
    assert "failed (launch): out of shared memory" in "\n".join(stage_report.format_stage_report(
        stage_report.StageReport(groups=(group,))))


# --------------------------------------------------------------------------- Ascend


def test_ascend_report_is_model_cycles_for_both_tiles_and_problems(ascend):
    assert {(g.problem, g.tile) for g in ascend.groups} == {(p, t) for p in ("1024x1024x1024 f16", "8192x8192x8192 f16") for t in TILES}
    for group in ascend.groups:
        assert group.basis == "model" and group.prediction is not None
        assert all(r.measured_s is None and r.modeled_cycles for r in group.rows)  # never mixed


def test_ascend_k_loop_ii_falls_from_one_to_two_stages(ascend):
    for group in ascend.groups:
        ii = _auto_times(group, "ii_cycles")
        assert ii[2] < ii[1], (group.tile, ii)
        assert ii[0] == ii[1]  # num_stages 0 schedules the same one-buffer loop


def test_ascend_latencies_come_from_estimate_latency_of_the_real_schedule(ascend, ascend_doc):
    group = _group(ascend, "8192x", "128x256x64 t256")
    lat = group.latencies
    rec = next(r for r in records_of(ascend_doc) if r["case_id"] == group.row(1).case_id)
    tasks = {t["kind"].split("->")[0]: t for t in rec["plan"]["schedule_model"]["loops"][0]["tasks"]}
    assert lat.compute == tasks["gemm"]["latency"]
    assert lat.issue == tasks["copy A"]["ii"] + tasks["copy B"]["ii"]  # both copies hold MTE2
    # the copies' critical path is exactly where Z3 starts the gemm in the one-buffer loop
    assert lat.latency == tasks["gemm"]["start"]
    assert group.prediction.iterations == rec["plan"]["schedule_model"]["loops"][0]["trip_count"]


def test_ascend_predicted_vs_modeled_per_stage(ascend):
    for group in ascend.groups:
        for row in group.rows:
            if row.loop_form == "auto" and row.num_stages >= 1:
                assert row.relative_error == pytest.approx((row.predicted - row.loop_cycles) / row.loop_cycles)
                assert row.predicted_ii == pytest.approx(row.ii_cycles, rel=0.01)
                assert abs(row.relative_error) < 0.02  # two models of one loop agree


def test_ascend_recommendation_and_why(ascend):
    for group in ascend.groups:
        cycles = _auto_times(group, "modeled_cycles")
        best = min(cycles.values())
        assert group.verdict.recommended == min(s for s, c in cycles.items() if c <= 1.02 * best) == 3
        assert "(model)" in group.verdict.why
    small = _group(ascend, "8192x", "128x128x32 t128")
    assert small.verdict.min_sufficient_depth == 4  # 1 + ceil(354 / 136)
    assert "copy-throughput bound" in small.verdict.why  # MTE2 164 cyc > gemm 136 cyc
    big = _group(ascend, "8192x", "128x256x64 t256")
    assert big.verdict.min_sufficient_depth == 3  # 1 + ceil(682 / 520)


def test_printed_report_labels_model_numbers(ascend, h200):
    text = "\n".join(stage_report.format_stage_report(ascend))
    assert "MODEL, not measured" in text and "II (Z3)" in text and "x vs 1 (model)" in text
    assert not re.search(r"\d (us|ms|s)\b", text)  # no time anywhere in a compile-only Ascend report
    nv = "\n".join(stage_report.format_stage_report(h200))
    assert "device median" in nv and "recommended num_stages = 4" in nv and "recommended num_stages = 3" in nv
    assert not re.search(r"\bcyc\b", nv)


# --------------------------------------------------------------------------- PNGs


def test_schedule_png_from_real_z3_start_times(ascend_doc, tmp_path):
    recs = [r for r in records_of(ascend_doc)
            if r["case_id"].startswith("gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s")
            and r["config"]["num_stages"] >= 1]
    recs.sort(key=lambda r: r["config"]["num_stages"])
    panels = schedule_figure.schedule_panels(recs, iterations_shown=6)
    assert [p.title.split(":")[0] for p in panels] == [f"num_stages={s}" for s in (1, 2, 3, 4)]
    loop = recs[1]["plan"]["schedule_model"]["loops"][0]
    gemm = next(t for t in loop["tasks"] if t["kind"] == "gemm")
    cube = next(lane for lane in panels[1].lanes if lane.name == "Cube")
    assert [b.start for b in cube.bars] == [i * loop["ii"] + gemm["start"] for i in range(6)]
    assert {lane.name for lane in panels[1].lanes} >= {"MTE2", "Cube", "Fixpipe"}

    out = schedule_figure.write_schedule_png(recs, tmp_path / "asc.png", title="ascend 8192^3 128x256x64")
    width, height = _png_size(out)
    assert out.stat().st_size > 20_000
    assert 1000 <= width <= 3000 and 600 <= height <= 4000


def test_fit_png_for_nvidia(h200, tmp_path):
    fit = _group(h200, "1024x", "128x128x32 t128").fit
    out = fit_plot.write_fit_png(fit, tmp_path / "nv.png", title="h200")
    width, height = _png_size(out)
    assert out.stat().st_size > 20_000 and 1000 <= width <= 3000 and 600 <= height <= 4000


def test_schedule_panels_refuse_records_without_a_schedule(h200_doc):
    rec = records_of(h200_doc)[2]
    with pytest.raises(ValueError, match="no scheduled K loop"):
        schedule_figure.schedule_panels([rec])


# --------------------------------------------------------------------------- main


def test_main_prints_and_writes_pngs(tmp_path, capsys):
    assert stage_report.main(str(ASCEND), png_dir=tmp_path) == 0
    out = capsys.readouterr().out
    assert "recommended num_stages = 3" in out
    pngs = sorted(tmp_path.glob("*.png"))
    assert len(pngs) == 4 and all(p.stat().st_size > 20_000 for p in pngs)
    assert stage_report.main(str(H200)) == 0
    assert "tile 128x256x64 t256" in capsys.readouterr().out


def _vendor_only(doc):
    out = copy.deepcopy(doc)
    out["benchmarks"] = [b for b in out["benchmarks"] if b["extra_info"]["tlbench"].get("config") is None]
    out["tlbench"]["failed"], out["tlbench"]["skipped"] = [], []
    return out


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        ("not json {", "not valid JSON"),
        (json.dumps({"hello": 1}), "not pytest-benchmark output"),
        ("VENDOR_ONLY", "no item of this file sweeps num_stages"),
    ],
)
def test_unusable_input_exits_2_with_one_line(tmp_path, capsys, h200_doc, content, message):
    path = tmp_path / "in.json"
    if content == "VENDOR_ONLY":
        content = json.dumps(_vendor_only(h200_doc))
    if content is not None:
        path.write_text(content)
    assert stage_report.main(str(path)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(path) in lines[0]


def test_build_refuses_a_document_that_is_not_benchmark_output():
    with pytest.raises(stage_report.StageReportError, match="--benchmark-json"):
        stage_report.build_stage_report({"nothing": []})


def test_loop_latencies_need_copies_and_compute():
    with pytest.raises(ValueError, match="needs both operand copies"):
        stage_report.loop_latencies({"loop_var": "k", "tasks": [{"kind": "gemm", "pipes": ["Cube"], "latency": 5, "ii": 5, "start": 0}]}, ASCEND_TRAITS.load_pipes)
