"""The timer cross-check tool's logic on the CPU: case selection from suites, ncu's CSV split
into calls per case, the table and its agreement lines, the step commands, bad input.

``fake_ncu_csv`` writes CSV in ncu's ``--csv`` layout for a made-up launch; ``FakeSteps`` stands
in for the GPU steps (it writes the files the real harness and ncu steps write).  The real tool
runs on the H200 (results/h200-parity/h200_timers.sh).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = ROOT / "results" / "h200-parity"  # the suites the timer cross-check times live with the campaign that runs it
import tlbench.backends.tools.timer_crosscheck as tool  # noqa: E402
from tlbench.backends.tools.timer_table import CrosscheckRow, agreement, calls_by_case, clock_by_case, markdown, ncu_clock_rows  # noqa: E402
from tlbench.backends.tools.timer_table import ncu_kernel_rows, table  # noqa: E402

GEMM_SUITE = str(CAMPAIGN / "crosscheck_gemm_suite.py")
MARKER, FLUSH, GEMM, CUBLAS, SPLITK = "spin_kernel", "FillFunctor<unsigned char>", "gemm_kernel", "sm90_xmma_gemm", "splitKreduce"


def fake_ncu_csv(kernels: list[tuple[str, float]], clocks_ghz: list[str] | None = None) -> str:
    """ncu --csv text for these (name, microseconds) launches, IDs in order, units varying, with
    ncu's own lines and a second metric in between (both must be ignored); with ``clocks_ghz``,
    each kernel's SM clock row too (as ncu writes it: ``hz`` with thousands separators, or
    ``cycle/nsecond``, or ``n/a``)."""
    head = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
    lines = ["==PROF== Connected to process 4242", head]
    for i, (name, us) in enumerate(kernels):
        unit, value = ("usecond", f"{us:,.3f}") if i % 2 else ("nsecond", f"{us * 1e3:,.1f}")
        row = ["" + str(i), "4242", "python3", "h", name, "1", "7", "(256, 1, 1)", "(64, 1, 1)", "0", "9.0", "Command line profiler metrics"]
        lines.append(",".join(f'"{c}"' for c in [*row, "gpu__time_duration.sum", unit, value]))
        lines.append(",".join(f'"{c}"' for c in [*row, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "50.0"]))
        if clocks_ghz:
            ghz = clocks_ghz[i]
            unit, value = ("hz", f"{float(ghz) * 1e9:,.2f}") if i % 2 and ghz != "n/a" else ("cycle/nsecond", ghz)  # ncu 2025.3 writes hz
            lines.append(",".join(f'"{c}"' for c in [*row, "sm__cycles_elapsed.avg.per_second", unit, value]))
    return "\n".join([*lines, "==PROF== Disconnected from process 4242"]) + "\n"


LAUNCH = [(MARKER, 1.0), (FLUSH, 30.0), (MARKER, 1.0),
          (FLUSH, 30.0), (GEMM, 8.5), (FLUSH, 31.0), (GEMM, 8.7), (MARKER, 1.0),
          (FLUSH, 30.0), (CUBLAS, 6.0), (SPLITK, 1.0), (FLUSH, 30.0), (CUBLAS, 6.2), (SPLITK, 1.1), (MARKER, 1.0)]


def test_ncu_rows_are_read_in_order_in_seconds():
    rows = ncu_kernel_rows(fake_ncu_csv(LAUNCH[:4]))
    assert [n for n, _ in rows] == [MARKER, FLUSH, MARKER, FLUSH]
    assert [s for _, s in rows] == pytest.approx([1e-6, 30e-6, 1e-6, 30e-6])


def test_each_case_segment_splits_at_the_flush_into_summed_calls():
    calls = calls_by_case(ncu_kernel_rows(fake_ncu_csv(LAUNCH)), ["gemm-a", "gemm-a-vendor"], 2)
    assert calls["gemm-a"] == pytest.approx([8.5e-6, 8.7e-6])
    assert calls["gemm-a-vendor"] == pytest.approx([7.0e-6, 7.3e-6])  # both of cuBLAS's kernels


LAUNCH_GHZ = ["0.345", "1.98", "0.35", "1.98", "1.70", "1.98", "1.80", "0.40", "1.98", "1.90", "n/a", "1.98", "1.60", "1.50", "0.4"]


def test_each_case_gets_the_median_clock_of_its_own_kernels_not_the_flush_or_marker():
    text = fake_ncu_csv(LAUNCH, LAUNCH_GHZ)
    clocks = ncu_clock_rows(text)
    assert clocks[:5] == pytest.approx([345.0, 1980.0, 350.0, 1980.0, 1700.0]) and clocks[10] is None
    by_case = clock_by_case(ncu_kernel_rows(text), clocks, ["gemm-a", "gemm-a-vendor"])
    assert by_case == pytest.approx({"gemm-a": 1750.0, "gemm-a-vendor": 1600.0})  # cuBLAS: 1900, 1600, 1500 (n/a left out)
    assert clock_by_case(ncu_kernel_rows(fake_ncu_csv(LAUNCH)), ncu_clock_rows(fake_ncu_csv(LAUNCH)), ["a", "b"]) == {}


def test_a_records_clock_is_the_median_over_its_kept_batches():
    def batch(mhz, **extra):
        return {"telemetry": {"sm_clock_mhz": mhz}, **extra}
    record = {"measurement": {"batches": [batch(1200, dropped=True), batch(1980), batch(1755, throttled=True), batch(1965),
                                          {"telemetry": None}]}}
    assert tool.kept_batch_clock(record) == 1965.0  # the dropped attempt out; the kept throttled batch in
    assert tool.kept_batch_clock({"measurement": {"batches": [{"telemetry": {}}]}}) is None and tool.kept_batch_clock({}) is None


def test_a_flush_of_several_kernels_is_read_from_the_first_two_markers():
    cast, reduce = "elementwise cast", "reduce_kernel"
    launch = [(MARKER, 1.0), (cast, 10.0), (reduce, 20.0), (MARKER, 1.0),
              (cast, 10.0), (reduce, 20.0), (GEMM, 8.5), (cast, 10.0), (reduce, 21.0), (GEMM, 8.7), (MARKER, 1.0)]
    assert calls_by_case(ncu_kernel_rows(fake_ncu_csv(launch)), ["gemm-a"], 2)["gemm-a"] == pytest.approx([8.5e-6, 8.7e-6])


@pytest.mark.parametrize("launch, cases, words", [
    (LAUNCH[2:], ["a", "b"], "first rows are not the launcher's marker, flush, marker"),
    (LAUNCH, ["a"], "2 case segments, the launcher ran 1"),
    (LAUNCH[:-1], ["a", "b"], "after the last marker"),
    (LAUNCH[:3] + [(FLUSH, 30.0), (FLUSH, 30.0), (GEMM, 8.0), (MARKER, 1.0)], ["a"], "expected 2"),
    (LAUNCH[:3] + [(GEMM, 8.0), (FLUSH, 30.0), (GEMM, 8.0), (MARKER, 1.0)], ["a"], "before the first flush"),
])
def test_a_launch_that_is_not_what_the_launcher_writes_is_refused(launch, cases, words):
    with pytest.raises(ValueError, match=words):
        calls_by_case(ncu_kernel_rows(fake_ncu_csv(launch)), cases, 2)


def _row(case_id, events, cupti, graph, none, base, graph_method="cuda-graph", cupti_mhz=None, ncu_mhz=None):
    harness = {"events": {"median_s": events, "status": "clean", "method": "cuda-event"},
               "cupti": {"median_s": cupti, "status": "clean", "method": "cupti-kernel-timestamps", "sm_clock_mhz": cupti_mhz},
               "graph": {"median_s": graph, "status": "CAPPED", "method": graph_method}}
    return CrosscheckRow.from_results(case_id, harness, {"none": [none, none * 1.1, none * 0.9], "base": [base]},
                                      {"none": ncu_mhz} if ncu_mhz else None)


def test_the_table_shows_medians_ratios_and_status_and_agreement_says_which_timer_misses():
    rows = [_row("gemm-1024", 12e-6, 8.8e-6, 9.5e-6, 8.6e-6, 9.9e-6),
            _row("gemm-8192", 1.64e-3, 1.612e-3, 1.60e-3, 1.60e-3, 1.80e-3, graph_method="cuda-event", cupti_mhz=1755.0, ncu_mhz=1980.0)]
    assert rows[0].ratio("cupti") == pytest.approx(8.8 / 8.6) and rows[0].ratio("base") == pytest.approx(9.9 / 8.6)
    text = table(rows)
    header, _, first, second = text.splitlines()
    assert header.split()[:3] == ["case", "events", "us"]
    assert first.split() == ["gemm-1024", "12.00", "8.80", "9.50", "8.60", "9.90", "1.3953", "1.0233", "1.1047", "1.1512",
                             "-/-", "clean/clean/CAPPED"]  # no clock on either side
    assert second.split()[-4:] == ["1755/1980", "clean/clean/CAPPED", "as", "cuda-event"]  # the fallback said in its status
    lines = agreement(rows)
    assert lines[1] == "cupti / ncu none over 2 cases: 1.0075 .. 1.0233 (misses +-2% by 0.33%)"
    assert lines[0].startswith("events / ncu none over 2 cases: 1.0250 .. 1.3953 (misses")
    assert markdown(rows).splitlines()[2].startswith("| gemm-1024 | 12.00 |")
    empty = CrosscheckRow.from_results("x", {"cupti": {"median_s": None, "status": "failed [check]"}}, {})
    assert math.isnan(empty.ratio("cupti")) and "failed [check]" in table([empty])
    assert agreement([empty])[1] == "cupti / ncu none: no pair measured"


def no_best(*_args):
    """A stand-in for the results layer's load_best: no recorded winners."""
    return None


def test_selection_takes_suite_cases_and_vendor_items_filtered_by_k_and_case():
    sweeps = [tool.load_sweep(GEMM_SUITE)]
    every = [c.case_id for c in tool.select(sweeps, None, [], no_best)]
    assert every == [f"gemm-{n}x{n}x{n}-f16-bm128-bn256-bk64-t256-auto-s3" for n in (1024, 2048, 4096, 8192)] + \
        [f"gemm-{n}x{n}x{n}-f16-vendor" for n in (1024, 2048, 4096, 8192)]
    chosen = tool.select(sweeps, "2048 or (8192 and not vendor)", [], no_best)
    assert [c.case_id for c in chosen] == [every[1], every[3], every[5]]
    assert [c.case_id for c in tool.select(sweeps, "vendor", [every[0], every[4]], no_best)] == [every[4]]
    with pytest.raises(tool.UsageProblem, match="--case gemm-3x3x3-f16-vendor: not a case of the given suites"):
        tool.select(sweeps, None, ["gemm-3x3x3-f16-vendor"], no_best)
    with pytest.raises(tool.UsageProblem, match="no case of 8 matches -k 'rmsnorm'"):
        tool.select(sweeps, "rmsnorm", [], no_best)
    with pytest.raises(tool.UsageProblem, match="-k 'and or'"):
        tool.select(sweeps, "and or", [], no_best)


class FakeSteps:
    """Stands in for the GPU steps: records each command and writes what that step writes."""

    def __init__(self, out: Path, ncu_exit: int = 0) -> None:
        self.out, self.ncu_exit, self.commands = out, ncu_exit, []

    def __call__(self, cmd, stdout=None, check=False):
        self.commands.append(list(cmd))
        if "harness" in cmd:
            row = _row("gemm-a", 12e-6, 8.8e-6, 9.5e-6, 8.6e-6, 9.9e-6)
            (self.out / "harness.json").write_text(json.dumps({"gemm-a": {t: {"median_s": s, "status": "clean", "sm_clock_mhz": 1890.0}
                                                                          for t, s in row.harness_s.items()}}))
            return type("Done", (), {"returncode": 0})()
        manifest = Path(cmd[cmd.index("--manifest") + 1])
        manifest.write_text(json.dumps({"cases": ["gemm-a", "gemm-a-vendor"], "count": 2}))
        stdout.write(fake_ncu_csv(LAUNCH, LAUNCH_GHZ))
        return type("Done", (), {"returncode": self.ncu_exit})()


def test_run_times_with_the_harness_then_ncu_none_and_base_and_prints_one_table(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tool.shutil, "which", lambda name: "/usr/local/bin/ncu")  # the GPU host has ncu; this box has none
    steps = FakeSteps(tmp_path)
    args = tool.parser().parse_args(["run", "--suite", GEMM_SUITE, "-k", "1024", "--out-dir", str(tmp_path), "--count", "2"])
    assert tool.run_all(args, runner=steps) == 0
    harness, none, base = steps.commands
    assert harness[-8:] == ["--seed", "1", "--l2-flush", "write", "--timers", "events,cupti,graph", "--out", str(tmp_path / "harness.json")]
    assert none[:10] == ["ncu", "--profile-from-start", "off", "--clock-control", "none", "--cache-control", "all",
                         "--metrics", "gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second", "--csv"]
    assert base[4] == "base" and none[none.index("launch") + 1:][:4] == ["--suite", GEMM_SUITE, "-k", "1024"]
    out = capsys.readouterr().out
    assert "gemm-a" in out and "8.60" in out and "cupti / ncu none over 1 cases: 1.0233 .. 1.0233" in out
    assert (tmp_path / "crosscheck.md").read_text().startswith("| case |")
    saved = json.loads((tmp_path / "crosscheck.json").read_text())[0]
    assert saved["ncu_mhz"] == pytest.approx({"none": 1750.0, "base": 1750.0}) and saved["harness_mhz"]["cupti"] == 1890.0
    assert "1890/1750" in out


def test_a_failed_ncu_step_still_gives_the_table_and_exits_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tool.shutil, "which", lambda name: "/usr/local/bin/ncu")
    args = tool.parser().parse_args(["run", "--suite", GEMM_SUITE, "--out-dir", str(tmp_path), "--ncu", "none"])
    assert tool.run_all(args, runner=FakeSteps(tmp_path, ncu_exit=3)) == 1
    captured = capsys.readouterr()
    assert "ncu --clock-control none exited 3" in captured.err and "gemm-a" in captured.out


@pytest.mark.parametrize("argv, words", [
    (["run", "--suite", "no/such/suite.py", "--ncu", "", "--out-dir", "{tmp}"], "--suite no/such/suite.py: no such file"),
    (["run", "--suite", GEMM_SUITE, "--out-dir", "{tmp}"], "ncu is not on PATH"),
    (["table", "/nonexistent-crosscheck-dir"], "harness.json: no such file"),
])
def test_bad_input_is_one_line_and_exit_2(argv, words, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(tool.shutil, "which", lambda name: None)
    assert tool.main([a.replace("{tmp}", str(tmp_path / "out")) for a in argv]) == 2
    assert not (tmp_path / "out").exists()  # nothing started, nothing written
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_unknown_timer_or_clock_mode_is_refused_by_the_parser(capsys):
    for argv in (["run", "--suite", GEMM_SUITE, "--timers", "cupti,ncu"], ["run", "--suite", GEMM_SUITE, "--ncu", "boost"]):
        with pytest.raises(SystemExit) as exit_:
            tool.parser().parse_args(argv)
        assert exit_.value.code == 2
    assert "comma list of none, base" in capsys.readouterr().err


def test_kernels_are_built_in_a_child_then_loaded_and_a_vendor_case_is_not_built(monkeypatch):
    """``_compile_all`` with real tilelang builds (NVIDIA path, CPU box): two build processes
    (``TLBENCH_BUILD_PROCESSES``) build the kernel, this process loads it; vendor cases are not
    compiled."""
    pytest.importorskip("tilelang")
    monkeypatch.setenv("TLBENCH_BUILD_PROCESSES", "2")
    cases = tool.select([tool.load_sweep(GEMM_SUITE)], "1024", [], no_best)
    built = tool._compile_all(tool._backend("events", "write"), cases, tool._options("events", "write"))
    assert list(built) == ["gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3"]
    assert not isinstance(built[cases[0].case_id], Exception), built


def test_the_l2_flush_mode_reaches_every_step_and_the_backend(tmp_path, monkeypatch):
    """--l2-flush read goes to the harness step and to ncu's launcher, and each builds its backend with it."""
    monkeypatch.setattr(tool.shutil, "which", lambda name: "/usr/local/bin/ncu")
    steps = FakeSteps(tmp_path)
    args = tool.parser().parse_args(["run", "--suite", GEMM_SUITE, "-k", "1024", "--out-dir", str(tmp_path), "--l2-flush", "read"])
    assert tool.run_all(args, runner=steps) == 0
    for cmd in steps.commands:
        assert cmd[cmd.index("--l2-flush") + 1] == "read"
    assert tool._backend("events", "read").flush_mode == "read" and tool._backend("events", "write").flush_mode == "write"
    with pytest.raises(SystemExit):
        tool.parser().parse_args(["run", "--suite", GEMM_SUITE, "--l2-flush", "invalidate"])


def test_the_launch_floor_suite_builds_its_one_block_copy_and_offers_torchs_copy_beside_it():
    """The floor cases the tool times for each timer's fixed cost: a real tilelang build of the
    one-block copy (NVIDIA path, CPU box), one block of 128 threads, and torch's copy as vendor."""
    pytest.importorskip("tilelang")
    cases = tool.select([tool.load_sweep(str(CAMPAIGN / "crosscheck_floor_suite.py"))], None, [], no_best)
    assert [c.case_id for c in cases] == ["copy_floor-N128-f32-threads128", "copy_floor-N128-f32-vendor"]
    built = tool._compile_all(tool._backend("events", "write"), cases, tool._options("events", "write"))
    plan = built["copy_floor-N128-f32-threads128"].plan
    assert list(built) == ["copy_floor-N128-f32-threads128"] and plan.features["grid"] == 1 and plan.threads == 128
