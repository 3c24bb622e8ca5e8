"""The installer's one decision: pin the CPU torch only when no torch exists."""

from tlbench.harness.bootstrap import pip_command


def test_fresh_box_pins_cpu_torch():
    cmd = pip_command(have_torch=False, dev=True)
    assert cmd[-1].endswith("[cpu-torch,dev]")


def test_existing_torch_is_left_alone():
    cmd = pip_command(have_torch=True, dev=False)
    assert "[" not in cmd[-1] and "torch" not in " ".join(cmd)


def test_pyproject_pins_the_cpu_wheel_in_the_extra_and_never_bare_torch():
    from pathlib import Path

    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["cpu-torch"] == ["torch==2.13.0"]
    assert not [d for d in project["dependencies"] if d.split("=")[0].split(">")[0].split("<")[0].strip() == "torch"]
    assert "tilelang==0.1.15" in project["dependencies"]
