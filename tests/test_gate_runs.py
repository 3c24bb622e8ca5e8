"""The gate fails closed on real runs: the toy backend and family (tests/toys/) through the real
plugin, pytest-benchmark and ``tlbench`` in subprocesses.

- a results file left by an earlier run is moved aside when the next run starts;
- an interrupted run (KeyboardInterrupt raised by pytest's own hook, as a Ctrl-C is) writes a
  file marked ``tlbench.partial``; ``compare`` refuses it (exit 2) unless ``--allow-partial``,
  and then its missing items gate (exit 1) unless ``--accept-missing``; ``--tlbench-resume``
  completes it and the completed file compares clean;
- a run whose every item fails (a deliberately broken toy compiler, set in the suite's
  conftest) still writes its JSON, and ``compare`` calls it a regression (exit 1);
- every reader (report, report --stages, report --json, compare --json, history add/show
  --json, dashboard, export) reads a toy-family file whose configs hold a list and an object.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "toys"))
from toy_project import make_toy_project, run_pytest, run_tlbench, toy_env  # noqa: E402

SUITE = """
from tlbench.harness.core.sweep import Sweep
from toy_family import VaddConfig, VaddProblem

SWEEP = Sweep(name="vadd", problems=[VaddProblem(4096)],
              configs=[VaddConfig(128), VaddConfig(256), VaddConfig(128, num_stages=2), VaddConfig(512)],
              vendor=False, kinds=("device",))

def test_vadd(tlbench):
    tlbench.run()
"""
INTERRUPT_CONFTEST = """
def pytest_runtest_teardown(item):
    if "b256" in item.nodeid:  # as a Ctrl-C would: pytest's own interruption path
        raise KeyboardInterrupt
"""
BROKEN_CONFTEST = """
import toy_backend

def _broken_compile(self, case, cold):  # a deliberately broken compiler, for this test only
    raise RuntimeError("deliberately broken toy compiler")

toy_backend.ToyBackend.compile = _broken_compile
"""


@pytest.fixture
def toy_dir(tmp_path):
    return make_toy_project(tmp_path, SUITE)


def _pytest(toy_dir: Path, out: str, *extra: str) -> subprocess.CompletedProcess:
    return run_pytest(toy_dir, out, "--tlbench-max-seconds=0.1", "--tlbench-isolation=inprocess", *extra)


def _tlbench(toy_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return run_tlbench(toy_dir, *args)


def test_stale_file_moved_aside_interrupted_run_marked_refused_and_resumed(toy_dir):
    base = _pytest(toy_dir, "base.json")
    assert base.returncode == 0, base.stdout[-2000:] + base.stderr[-2000:]
    (toy_dir / "run.json").write_text((toy_dir / "base.json").read_text())  # an earlier run's file at the new path
    (toy_dir / "conftest.py").write_text(INTERRUPT_CONFTEST)
    cut = _pytest(toy_dir, "run.json")
    assert cut.returncode == pytest.ExitCode.INTERRUPTED, cut.stdout[-2000:]
    assert (toy_dir / "run.json.previous").read_text() == (toy_dir / "base.json").read_text()
    assert "moved to" in cut.stdout and "run.json.previous" in cut.stdout
    doc = json.loads((toy_dir / "run.json").read_text())
    partial = doc["tlbench"]["partial"]
    assert partial["reason"] == "interrupted" and partial["run_ended"] is False
    assert partial["items_collected"] == 4 and partial["items_in_file"] < 4 and partial["missing"]

    refused = _tlbench(toy_dir, "compare", "base.json", "run.json")
    assert refused.returncode == 2 and "PARTIAL" in refused.stderr and "--tlbench-resume" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    judged = _tlbench(toy_dir, "compare", "base.json", "run.json", "--allow-partial", "--json")
    assert judged.returncode == 1, judged.stderr
    verdicts = json.loads(judged.stdout)
    assert verdicts["exit_code"] == 1 and "not measured" in verdicts["exit_reason"]
    assert 1 <= verdicts["counts"]["MISSING"] <= len(partial["missing"])  # the base's skipped item is not missing
    assert verdicts["new"]["partial"]["reason"] == "interrupted"
    narrower = _tlbench(toy_dir, "compare", "base.json", "run.json", "--allow-partial", "--accept-missing")
    assert narrower.returncode in (0, 1) and "MISSING" in narrower.stdout

    (toy_dir / "conftest.py").unlink()
    resumed = _pytest(toy_dir, "run.json", "--tlbench-resume=run.journal.jsonl")
    assert resumed.returncode == 0, resumed.stdout[-2000:]
    done = json.loads((toy_dir / "run.json").read_text())
    assert done["tlbench"]["partial"] is None and len(done["benchmarks"]) == len(json.loads((toy_dir / "base.json").read_text())["benchmarks"])
    assert done["tlbench"]["reused_items"] >= 1
    clean = _tlbench(toy_dir, "compare", "base.json", "run.json")
    assert clean.returncode in (0, 1) and "PARTIAL" not in clean.stderr and "MISSING" not in clean.stdout


def test_a_run_whose_every_item_fails_writes_its_json_and_gates(toy_dir):
    assert _pytest(toy_dir, "base.json").returncode == 0
    (toy_dir / "conftest.py").write_text(BROKEN_CONFTEST)
    broken = _pytest(toy_dir, "broken.json")
    assert broken.returncode == 1  # pytest: the items failed
    assert "Not saving anything" not in broken.stdout + broken.stderr or (toy_dir / "broken.json").exists()
    doc = json.loads((toy_dir / "broken.json").read_text())
    assert doc["benchmarks"] == [] and len(doc["tlbench"]["failed"]) >= 3
    assert "deliberately broken toy compiler" in doc["tlbench"]["failed"][0]["error"]
    compared = _tlbench(toy_dir, "compare", "base.json", "broken.json")
    assert compared.returncode == 1, compared.stderr
    assert "FAILED" in compared.stdout


def _with_list_and_dict_configs(path: Path) -> None:
    doc = json.loads(path.read_text())
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if rec.get("config") is not None:
            rec["config"]["shape"] = [2, 3]
            rec["config"]["layout"] = {"order": ["k", "n"], "swizzle": 2}
    path.write_text(json.dumps(doc))


def test_every_reader_reads_a_toy_family_file_whose_configs_hold_lists_and_objects(toy_dir):
    for name in ("a.json", "b.json"):
        run = _pytest(toy_dir, name)
        assert run.returncode == 0, run.stdout[-2000:]
        _with_list_and_dict_configs(toy_dir / name)
    for args in (["report", "a.json"], ["report", "a.json", "--stages"], ["report", "a.json", "--markdown", "a.md"],
                 ["compare", "a.json", "b.json", "--markdown", "c.md"],
                 ["history", "add", "a.json", "b.json", "--history", "h.sqlite"],
                 ["dashboard", "--history", "h.sqlite", "--out-dir", "site"],
                 ["export", "--format", "github-action-benchmark", "a.json", "--out-dir", "exported"]):
        done = _tlbench(toy_dir, *args)
        assert done.returncode in ((0, 1) if args[0] == "compare" else (0,)), (args, done.stdout[-1500:], done.stderr[-1500:])
        assert "Traceback" not in done.stderr, args
    shown = _tlbench(toy_dir, "history", "show", "--history", "h.sqlite", "--json")
    assert shown.returncode == 0, shown.stderr
    series = json.loads(shown.stdout)["series"]
    assert {s["case_id"] for s in series} >= {"vadd-4096-f32-b128-t64-auto-s1"} and all(len(s["points"]) == 2 for s in series)
    report = json.loads(_tlbench(toy_dir, "report", "a.json", "--json").stdout)
    assert report["counts"]["timed"] >= 3 and {i["family"] for i in report["items"]} == {"vadd"}
    summary = subprocess.run([sys.executable, "-c", "import json,sys\n"
                              "from tlbench.harness.results.files.store import load_results\n"
                              "from tlbench.harness.results.report.summary import summary_lines\n"
                              "print('\\n'.join(summary_lines(load_results('a.json').records)))"],
                             cwd=toy_dir, env=toy_env(toy_dir), capture_output=True, text=True, timeout=120)
    assert summary.returncode == 0, summary.stderr
    assert "vadd-4096-f32" in summary.stdout and "b128" not in summary.stdout.split("\n", 1)[0]
