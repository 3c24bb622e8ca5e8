"""``tlbench nightly`` end to end on the CPU box, and its crash isolation.

The end-to-end test runs the real stage suite (Ascend, compile kind, smoke scope, two
configs) through ``harness.cli.main``: first with no baseline (exit 0, the summary says how
to make one), then against a deliberately made baseline whose samples are a quarter of the
first run's (exit 1, SLOWER in the markdown).  Crash isolation runs the throwaway sleep
backend of tests/fixtures/compare/sleepy next to a suite that crashes and one that hangs.
"""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tlbench.harness.cli import main
from tlbench.harness.results.compare.judgement import Thresholds
from tlbench.harness.results.nightly.nightly import NightlyPlan, gate_against_baselines, run_nightly

ROOT = Path(__file__).resolve().parents[1]
SLEEPY = Path(__file__).parent / "fixtures" / "compare" / "sleepy"
SELECTION = "--tlbench-kind=compile --tlbench-scope=smoke --tlbench-compile-rounds=4 -k 'bn128-bk32 and (auto-s2 or auto-s3)'"


def _selection() -> tuple[str, ...]:
    """The later nights' options: SELECTION's, counting no instructions (the first night shows the
    default counting; these judge time, and callgrind would add minutes to each)."""
    return ("--tlbench-kind=compile", "--tlbench-scope=smoke", "--tlbench-compile-rounds=4",
            "-k", "bn128-bk32 and (auto-s2 or auto-s3)", "--tlbench-instructions=hardware")


@pytest.fixture(scope="module")
def first_night(tmp_path_factory):
    pytest.importorskip("tilelang")
    work = tmp_path_factory.mktemp("nightly")
    step_summary = work / "step-summary.md"
    mp = pytest.MonkeyPatch()
    mp.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    mp.chdir(ROOT)
    try:
        code = main([
            "nightly", "suites/gemm/test_stages.py", "--backend", "ascend", f"--pytest-args={SELECTION}",
            "--out-dir", str(work / "out"), "--baseline-dir", str(work / "baselines"), "--timeout", "900",
            "--history", str(work / "history.sqlite"),
        ])
    finally:
        mp.undo()
    return code, work, step_summary


def test_first_night_without_baseline(first_night):
    code, work, step_summary = first_night
    out = work / "out"
    summary = (out / "summary.md").read_text()
    assert code == 0, summary
    assert "| suites/gemm/test_stages.py | ok | 2 | 0 | 0 |" in summary
    assert f"no baseline {work / 'baselines' / 'ascend-cpu.json'}" in summary
    assert f"tlbench baseline update {out / 'ascend-cpu.json'}" in summary
    assert step_summary.read_text() == summary  # appended to $GITHUB_STEP_SUMMARY
    run = json.loads((out / "ascend-cpu.json").read_text())
    assert [b["extra_info"]["tlbench"]["case_id"][-24:] for b in run["benchmarks"]] == [
        "bm128-bn128-bk32-t128-auto-s2"[-24:], "bm128-bn128-bk32-t128-auto-s3"[-24:]]
    assert (out / "logs" / "test_stages.log").read_text().startswith("$ ")


def test_a_cpu_night_with_default_options_counts_every_compile_item_where_valgrind_is_installed(first_night):
    """No --tlbench-instructions given (the selection's options only): on a box without a hardware
    counter but with Valgrind, every compile item of the night carries callgrind's count."""
    from tlbench.harness.measure.callgrind import callgrind_reason
    from tlbench.harness.measure.hardware_counter import hardware_reason

    if callgrind_reason() is not None:
        pytest.skip(f"callgrind not usable here: {callgrind_reason()}")
    assert "instructions" not in SELECTION
    _, work, _ = first_night
    records = [b["extra_info"]["tlbench"] for b in json.loads((work / "out" / "ascend-cpu.json").read_text())["benchmarks"]]
    assert len(records) == 2
    counters = [r["instructions"].get("counter") for r in records]
    assert counters == (["callgrind"] * 2 if hardware_reason() else ["hardware"] * 2), [r["instructions"] for r in records]


def test_the_night_is_added_to_the_history(first_night):
    from tlbench.harness.results.history import query
    from tlbench.harness.results.history.schema import open_history

    _, work, _ = first_night
    assert "### History" in (work / "out" / "summary.md").read_text()
    conn = open_history(work / "history.sqlite")
    assert query.run_count(conn) == 1
    assert len(query.series(conn, "*-auto-s[23]")) == 2


def test_a_night_with_nothing_to_judge_against_says_so_in_its_first_line(first_night):
    _, work, _ = first_night
    summary = (work / "out" / "summary.md").read_text()
    assert summary.splitlines()[0] == "## tlbench nightly: GATED NOTHING - no baseline and no history to judge ascend against"
    assert f"no history yet at {work / 'history.sqlite'}" in summary
    assert "**What this night can see without a device:** compile time of 2 compile item(s)" in summary
    assert "**What it cannot see:** how fast any kernel runs on the device" in summary


def test_the_next_night_without_a_baseline_is_judged_against_the_history(first_night):
    """A real second night (the history holds the first): judged against the history, per item
    the best of its last runs; the compiler decided the same, so every plan is SAME PLAN."""
    _, work, _ = first_night
    plan = NightlyPlan(
        suites=(ROOT / "suites" / "gemm" / "test_stages.py",), backend="ascend", out_dir=work / "out-history",
        baseline_dir=work / "baselines", pytest_args=_selection(), timeout_s=900, cwd=ROOT,
        history=work / "history.sqlite", remeasure=False,
    )
    outcome = run_nightly(plan)
    assert outcome.markdown.splitlines()[0] == "## tlbench nightly: judged ascend against the history"
    (gate,) = outcome.gates
    assert gate.reference is not None and gate.reference.kind == "history"
    assert gate.comparison is not None and gate.comparison.compared == 2
    assert [p.verdict for p in gate.comparison.plans] == ["SAME PLAN", "SAME PLAN"]
    assert f"vs history `{work / 'history.sqlite'}` (per item the best of its last 5 runs on this testbed)" in outcome.markdown


def test_same_run_as_baseline_passes(first_night, capsys):
    _, work, _ = first_night
    baselines = work / "aa-baselines"
    assert main(["baseline", "update", str(work / "out" / "ascend-cpu.json"), "--out-dir", str(baselines)]) == 0
    assert "created" in capsys.readouterr().out
    (gate,) = gate_against_baselines({"ascend": work / "out" / "ascend-cpu.json"}, baselines, Thresholds())
    assert gate.comparison is not None and not gate.comparison.has_regression
    assert {i.verdict.value for i in gate.comparison.items} == {"SAME"}


def test_second_night_against_a_faster_baseline_fails(first_night):
    """A baseline 4x faster than tonight (the first run with its samples scaled by 0.25):
    tonight's real run must come out SLOWER and the night must exit 1."""
    _, work, _ = first_night
    baselines = work / "fast-baselines"
    baselines.mkdir()
    doc = json.loads((work / "out" / "ascend-cpu.json").read_text())
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        rec["samples_s"] = [s * 0.25 for s in rec["samples_s"]]
        rec["cpu_samples_s"] = [s * 0.25 for s in rec["cpu_samples_s"]]  # the compile gate judges CPU seconds
    (baselines / "ascend-cpu.json").write_text(json.dumps(doc))
    plan = NightlyPlan(
        suites=(ROOT / "suites" / "gemm" / "test_stages.py",),
        backend="ascend",
        out_dir=work / "out2",
        baseline_dir=baselines,
        pytest_args=_selection(),
        timeout_s=900,
        cwd=ROOT,
    )
    outcome = run_nightly(plan)
    assert outcome.exit_code == 1, outcome.markdown
    assert "**:x: REGRESSION** (exit 1)" in outcome.markdown
    assert outcome.markdown.count("| SLOWER |") == 2
    assert outcome.summary_path.read_text() == outcome.markdown


def test_one_crash_costs_one_file(tmp_path):
    suites = tmp_path / "suites"
    suites.mkdir()
    shutil.copy(SLEEPY / "sleepy_suite.py", suites / "test_c_sleepy.py")
    (suites / "conftest.py").write_text(
        (SLEEPY / "sleepy_conftest.py").read_text().replace("os.path.dirname(__file__)", repr(str(SLEEPY)))
    )
    (suites / "test_a_crash.py").write_text("import os\nos._exit(3)\n")
    (suites / "test_b_hang.py").write_text(textwrap.dedent("""
        import time

        def test_hang(benchmark):  # uses the fixture, so --benchmark-only runs it
            time.sleep(600)
    """))
    plan = NightlyPlan(
        suites=(suites,),
        backend="sleepy",
        out_dir=tmp_path / "out",
        baseline_dir=tmp_path / "baselines",
        pytest_args=("--tlbench-kind=device",),
        timeout_s=15,
        python=sys.executable,
        cwd=tmp_path,
    )
    outcome = run_nightly(plan)
    status = {r.suite.name: r.status for r in outcome.suite_runs}
    assert status == {"test_a_crash.py": "crashed", "test_b_hang.py": "timeout", "test_c_sleepy.py": "ok"}
    assert outcome.exit_code == 2  # no regression, but two suites left no results
    assert "| " + str(suites / "test_b_hang.py") + " | timeout |" in outcome.markdown
    assert "killed after 15 s" in outcome.markdown
    assert (tmp_path / "out" / "sleepy-host-cpu-time-sleep.json").exists()
    assert "no baseline" in outcome.markdown


def _sleepy_suites(tmp_path):
    suites = tmp_path / "suites"
    suites.mkdir()
    shutil.copy(SLEEPY / "sleepy_suite.py", suites / "test_sleepy.py")
    (suites / "conftest.py").write_text(
        (SLEEPY / "sleepy_conftest.py").read_text().replace("os.path.dirname(__file__)", repr(str(SLEEPY)))
    )
    return suites


def _sleepy_night(tmp_path, suites, name, baselines):
    return NightlyPlan(
        suites=(suites,), backend="sleepy", out_dir=tmp_path / name, baseline_dir=baselines,
        pytest_args=("--tlbench-kind=device", "--tlbench-criterion=fixed:samples=30", "--tlbench-batch=10"),
        timeout_s=300, python=sys.executable, cwd=tmp_path,
    )


def test_a_flag_the_remeasurement_does_not_reproduce_does_not_gate(tmp_path, monkeypatch):
    """Real sleep-timed runs: the second night's process is 50 % slow (transiently), the
    re-measurement in a new process is not: flagged, re-measured once, not a regression.
    The third night is slow for good (TLBENCH_SLEEP_FACTOR): it reproduces and exits 1."""
    suites = _sleepy_suites(tmp_path)
    baselines = tmp_path / "baselines"
    first = run_nightly(_sleepy_night(tmp_path, suites, "night1", baselines))
    assert first.exit_code == 0 and "no baseline" in first.markdown
    assert main(["baseline", "update", str(tmp_path / "night1" / "sleepy-host-cpu-time-sleep.json"), "--out-dir", str(baselines)]) == 0

    once = tmp_path / "slow-once"
    once.touch()
    monkeypatch.setenv("TLBENCH_SLEEP_SLOW_ONCE", str(once))
    second = run_nightly(_sleepy_night(tmp_path, suites, "night2", baselines))
    (gate,) = second.gates
    # at first every kernel (7) is SLOWER and so is the whole run (the vendor item did not move)
    assert gate.first is not None and len(gate.first.regressions) == 7 and len(gate.first.gating_shifts) == 1
    assert len(gate.remeasured) == 8 and not gate.comparison.has_regression  # the shift's group: all 8 items
    assert second.exit_code == 0, second.markdown
    assert "flagged 8 regression(s); 8 item(s) re-measured once; 0 reproduced" in second.markdown

    monkeypatch.delenv("TLBENCH_SLEEP_SLOW_ONCE")
    monkeypatch.setenv("TLBENCH_SLEEP_FACTOR", "1.5")
    third = run_nightly(_sleepy_night(tmp_path, suites, "night3", baselines))
    (gate,) = third.gates
    assert third.exit_code == 1 and len(gate.comparison.regressions) == 7
    assert "8 item(s) re-measured once; 8 reproduced" in third.markdown
    assert "WHOLE-RUN SHIFT sleepy/sleepy/device" in third.markdown


def test_a_flagged_item_is_remeasured_beside_its_reference_and_judged_against_the_same_items(tmp_path, monkeypatch):
    """Real sleep-timed runs.  The second night's first process runs one kernel (s3) 50 % slow,
    transiently: it alone is flagged; it is re-measured in one process beside the vendor item it
    is judged against (2 node ids, not the whole run), and that pair against the baseline's same
    two items does not reproduce it: exit 0.  The third night's s3 is slow for good: the pair
    reproduces it, exit 1, and the second comparison holds exactly those two items."""
    suites = _sleepy_suites(tmp_path)
    baselines = tmp_path / "baselines"
    assert run_nightly(_sleepy_night(tmp_path, suites, "night1", baselines)).exit_code == 0
    assert main(["baseline", "update", str(tmp_path / "night1" / "sleepy-host-cpu-time-sleep.json"), "--out-dir", str(baselines)]) == 0
    monkeypatch.setenv("TLBENCH_SLEEP_ONLY_STAGES", "3")

    once = tmp_path / "slow-once"
    once.touch()
    monkeypatch.setenv("TLBENCH_SLEEP_SLOW_ONCE", str(once))
    second = run_nightly(_sleepy_night(tmp_path, suites, "night2", baselines))
    (gate,) = second.gates
    assert [i.key.case_id[-7:] for i in gate.first.regressions] == ["auto-s3"]
    assert len(gate.remeasured) == 2 and any(n.endswith("-vendor]") for n in gate.remeasured)
    assert {i.key.case_id[-7:] for i in gate.again.items} == {"auto-s3", "-vendor"}
    assert not gate.comparison.has_regression and second.exit_code == 0, second.markdown
    assert "flagged 1 regression(s); 2 item(s) re-measured once; 0 reproduced" in second.markdown

    monkeypatch.delenv("TLBENCH_SLEEP_SLOW_ONCE")
    monkeypatch.setenv("TLBENCH_SLEEP_FACTOR", "1.5")
    third = run_nightly(_sleepy_night(tmp_path, suites, "night3", baselines))
    (gate,) = third.gates
    assert third.exit_code == 1 and [i.key.case_id[-7:] for i in gate.comparison.regressions] == ["auto-s3"]
    assert "2 item(s) re-measured once; 1 reproduced" in third.markdown


def test_an_item_with_no_reference_to_remeasure_against_keeps_its_first_verdict(tmp_path):
    """plan_remeasure on a real two-item compile run: a flagged item whose group has one other
    item is not re-measured (no reference it could be judged against); the plan says so."""
    from tlbench.harness.results.compare.comparison import ItemComparison, ItemKey, RunComparison
    from tlbench.harness.results.compare.judgement import Thresholds, Verdict
    from tlbench.harness.results.nightly.remeasure import combine, plan_remeasure
    from tlbench.harness.results.files.store import load_results, parse_results

    doc = json.loads((ROOT / "tests" / "fixtures" / "compare" / "compile-cpu2" / "b2.json").read_text())
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["extra_info"]["tlbench"]["backend"] == "nvidia"][:2]
    new = parse_results(doc, "two.json")
    rec = new.records[0]
    key = ItemKey("stages", "nvidia", "compile", rec["case_id"])
    first = RunComparison("base.json", "two.json", Thresholds(),
                          (ItemComparison(key, "p", Verdict.FAILED, True, detail="failed in new"),), ())
    todo = plan_remeasure(first, new)
    assert todo.nodeids == () and len(todo.unpaired) == 1 and "first verdict stands" in todo.unpaired[0]
    assert combine(first, first, todo).has_regression


def test_a_suite_that_selects_nothing_says_so_in_words_with_its_log(tmp_path):
    from tlbench.harness.results.nightly.nightly_runner import _finished

    suite = tmp_path / "test_tiny.py"
    suite.write_text("def test_one():\n    pass\n")
    log = tmp_path / "tiny.log"
    with log.open("w") as out:  # a real pytest that deselects its only item, as a scope does
        code = subprocess.run([sys.executable, "-m", "pytest", str(suite), "-k", "nothing_matches", "-p", "no:cacheprovider"],
                              stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path).returncode
    assert code == 5
    run = _finished(suite, code, 2.0, log, tmp_path / "absent.json")
    assert run.status == "no tests" and run.message == f"selected no item (1 deselected); log {log}"
    assert "=" not in run.message
