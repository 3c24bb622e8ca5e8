"""tlbench in someone else's project: one that has its own ``harness`` and ``backends`` packages,
plain unit tests, a pytest-benchmark test of its own and a tlbench suite.

Every run is a real pytest process in a scratch project under ``tmp_path``, with tlbench on
its path as pip installs it (the wheel of this tree in a folder of its own: tests/conftest.py
``installed_tlbench``; the plugin loads through its entry point) and the toy backend and
family of tests/toys registered through a dist-info of their own.  The tlbench checkout is NOT
on the path: ``import harness`` there is the project's own package.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TOYS = Path(__file__).resolve().parent / "toys"
sys.path.insert(0, str(TOYS))
from toy_project import ENTRY_POINTS as TOY_ENTRY_POINTS  # noqa: E402  (the toy backend and family's registration)


FILES = {
    "harness/__init__.py": "def double(x):\n    return 2 * x\n",
    "backends/__init__.py": "NAMES = ('mine',)\n",
    "tests/test_unit.py": (
        "import backends\nimport harness\n\n\n"
        "def test_own_packages():\n"
        "    assert harness.double(21) == 42 and backends.NAMES == ('mine',)\n"
        "    assert harness.__file__.startswith(__file__.rsplit('/tests/', 1)[0])\n"
    ),
    "tests/test_own_bench.py": (
        "import harness\n\n\ndef test_double_speed(benchmark):\n    assert benchmark(harness.double, 3) == 6\n"
    ),
    "suites/test_vadd.py": (
        "from tlbench.harness.core.sweep import Sweep\nfrom toy_family import VaddConfig, VaddProblem\n\n"
        "SWEEP = Sweep(name='vadd', problems=[VaddProblem(4096)], configs=[VaddConfig(256), VaddConfig(128)],\n"
        "              kinds=('device',))\n\n\n"
        "def test_vadd(tlbench):\n    tlbench.run()\n"
    ),
    "pyproject.toml": (
        "[tool.pytest.ini_options]\ntestpaths = ['tests', 'suites']\n"
        "addopts = '-p no:cacheprovider --tlbench-backend=toy --tlbench-max-seconds=0.2'\n"
    ),
}


FILES_AT_TOP = {name.split("/")[0] for name in FILES}


@pytest.fixture
def project(tmp_path, installed_tlbench):
    root = tmp_path / "project"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "site").symlink_to(installed_tlbench)
    dist = tmp_path / "toys" / "toyplugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(TOY_ENTRY_POINTS)
    return root


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    site, toys = project.parent / "site", project.parent / "toys"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(toys), str(TOYS)])}
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=600, umask=0o022)


def _passed(out: subprocess.CompletedProcess) -> str:
    assert "INTERNALERROR" not in out.stdout + out.stderr, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


def test_unit_tests_and_a_tlbench_suite_run_side_by_side(project):
    out = _pytest(project, "--benchmark-json=results.json")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert re.search(r"\b4 passed\b", _passed(out))  # 2 own tests + 2 toy items
    doc = json.loads((project / "results.json").read_text())
    ids = sorted(b["extra_info"]["tlbench"]["case_id"] for b in doc["benchmarks"] if "tlbench" in b["extra_info"])
    assert ids == ["vadd-4096-f32-b128-t64-auto-s1", "vadd-4096-f32-b256-t64-auto-s1"]
    assert (project / "results.json").stat().st_mode & 0o777 == 0o644  # the user's umask (022), not 0600
    assert (project / "results.journal.jsonl").stat().st_mode & 0o777 == 0o644


def test_without_pytest_benchmark_the_unit_tests_run_and_tlbench_items_say_why_they_skip(project):
    out = _pytest(project, "-p", "no:benchmark", "-rs", "tests/test_unit.py", "suites")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert re.search(r"\b1 passed, 2 skipped\b", _passed(out))
    assert "pytest-benchmark is turned off (-p no:benchmark)" in out.stdout


def test_a_run_with_no_tlbench_item_is_as_without_tlbench(project):
    plain = ("-o", "addopts=", "-p", "no:cacheprovider", "tests")  # no tlbench option: -p no:tlbench.harness.plugin would refuse it
    mine = _pytest(project, *plain, "--benchmark-json=plain.json")
    assert mine.returncode == 0, mine.stdout[-3000:] + mine.stderr[-3000:]
    without = _pytest(project, "-p", "no:tlbench.harness.plugin", *plain, "--benchmark-json=plain2.json")
    assert without.returncode == 0, without.stdout[-3000:]

    def shape(text: str) -> list[str]:  # the lines, less timings, paths and the widths they set (rules of - and =)
        # and less pytest's header line listing the distributions of the plugins it loaded: that
        # tlbench is among them where it is loaded is pytest's report, not tlbench's doing
        return [re.sub(r"=+", "=", re.sub(r"-+", "-", re.sub(r"\s+", " ", re.sub(r"[\d.,]+", "N", line.replace("plain2.json", "plain.json")))))
                for line in text.splitlines() if not line.startswith("plugins: ")]

    assert "Name (time in" in mine.stdout  # pytest-benchmark's own table, not hidden
    assert shape(mine.stdout) == shape(without.stdout)
    made = sorted(p.name for p in project.iterdir() if p.name not in FILES_AT_TOP and p.name != ".benchmarks")  # .benchmarks: pytest-benchmark's storage
    assert made == ["plain.json", "plain2.json"]  # no journal
    assert (project / "plain.json").stat().st_mode & 0o777 == (project / "plain2.json").stat().st_mode & 0o777


def test_benchmark_compare_on_one_machine_does_not_warn_and_a_changed_backend_does(project):
    first = _pytest(project, "suites", "--benchmark-autosave")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    (saved,) = (project / ".benchmarks").rglob("*.json")
    assert json.loads(saved.read_text())["machine_info"]["toy_version"] == "1"  # tlbench's keys are in the saved run

    same = _pytest(project, "suites", "--benchmark-compare")
    assert same.returncode == 0, same.stdout[-3000:] + same.stderr[-3000:]
    assert "Comparing against benchmarks from" in same.stderr  # pytest-benchmark logs to stderr
    assert "machine_info is different" not in same.stdout + same.stderr

    doc = json.loads(saved.read_text())
    doc["machine_info"]["toy_version"] = "0"  # as if saved with another toy runtime
    saved.write_text(json.dumps(doc))
    other = _pytest(project, "suites", "--benchmark-compare")
    assert other.returncode == 0, other.stdout[-3000:]
    assert "machine_info is different" in other.stdout + other.stderr


def test_a_test_only_option_marks_the_results_file(project):
    (project / "conftest.py").write_text(
        "def pytest_addoption(parser):\n"
        "    parser.addoption('--mine-test-only-knob', dest='mine_test_only_knob', default=None)\n"
    )
    plain = _pytest(project, "suites", "--benchmark-json=plain.json")
    marked = _pytest(project, "suites", "--benchmark-json=marked.json", "--mine-test-only-knob=7")
    assert plain.returncode == 0 and marked.returncode == 0, marked.stdout[-3000:] + marked.stderr[-3000:]
    assert json.loads((project / "plain.json").read_text())["tlbench"]["test_only"] == []
    assert json.loads((project / "marked.json").read_text())["tlbench"]["test_only"] == ["mine_test_only_knob=7"]
    runs = [json.loads(line) for line in (project / "marked.journal.jsonl").read_text().splitlines()]
    assert runs[0]["type"] == "run" and runs[0]["tlbench"]["test_only"] == ["mine_test_only_knob=7"]  # a recovery keeps it
