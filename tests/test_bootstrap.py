"""The installer's decisions: PyTorch's CPU-only wheel when no torch exists, from PyTorch's CPU
index unless pip's own configuration already holds that wheel; an existing torch left alone."""

import subprocess
import sys
from pathlib import Path

import pytest

from tlbench.harness import bootstrap
from tlbench.harness.bootstrap import CPU_INDEX, ROOT, pip_command, probe_command

PIP = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q"]


def test_a_stock_box_asks_pytorchs_cpu_index_for_the_cpu_wheel():
    assert CPU_INDEX == "https://download.pytorch.org/whl/cpu"
    assert pip_command(have_torch=False, dev=True) == [*PIP, "--extra-index-url", CPU_INDEX, "-e", f"{ROOT}[cpu-torch,dev]"]


def test_a_box_whose_pip_holds_the_cpu_wheel_asks_no_extra_index():
    assert pip_command(have_torch=False, dev=False, torch_index=None) == [*PIP, "-e", f"{ROOT}[cpu-torch]"]


def test_existing_torch_is_left_alone():
    cmd = pip_command(have_torch=True, dev=False, more_extras=("nvidia",))
    assert cmd == [*PIP, "-e", f"{ROOT}[nvidia]"]  # no torch pin, no torch index


def test_the_local_wheel_probe_asks_pip_without_any_index_and_installs_nothing():
    assert probe_command() == [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index",
                               "--ignore-installed", "--disable-pip-version-check", "-q", "torch==2.13.0+cpu"]
    asked = []
    for code, expected in ((0, True), (1, False)):
        found = bootstrap.cpu_wheel_at_hand(run=lambda cmd, **kw: (asked.append(cmd), subprocess.CompletedProcess(cmd, code))[1])
        assert found is expected
    assert asked == [probe_command(), probe_command()]


def test_dry_run_prints_the_command_and_runs_nothing(capsys, monkeypatch):
    monkeypatch.setattr(bootstrap.importlib.util, "find_spec", lambda name: None)  # as on a box with no torch
    monkeypatch.setattr(bootstrap, "cpu_wheel_at_hand", lambda: False)
    monkeypatch.setattr(bootstrap.subprocess, "call", lambda cmd: pytest.fail(f"ran {cmd}"))
    assert bootstrap.main(["--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["no torch: PyTorch's CPU-only wheel torch==2.13.0+cpu, from https://download.pytorch.org/whl/cpu",
                   " ".join([*PIP, "--extra-index-url", CPU_INDEX, "-e", f"{ROOT}[cpu-torch]"])]


def test_pyproject_pins_the_cpu_wheel_in_the_extra_and_never_bare_torch():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    packaging = pytest.importorskip("packaging.requirements")

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["cpu-torch"]
    assert extra == ["torch==2.13.0+cpu; sys_platform == 'linux'", "torch==2.13.0; sys_platform != 'linux'"]
    linux = [r for r in map(packaging.Requirement, extra) if r.marker.evaluate({"sys_platform": "linux"})]
    assert [str(r.specifier) for r in linux] == ["==2.13.0+cpu"]
    assert "+cpu" in bootstrap.TORCH_CPU and bootstrap.TORCH_CPU == extra[0].split(";")[0]
    assert project["optional-dependencies"]["nvidia"] == ["nvidia-ml-py>=12"]
    assert not [d for d in project["dependencies"] if d.split("=")[0].split(">")[0].split("<")[0].strip() == "torch"]
    assert "tilelang==0.1.15" in project["dependencies"]
