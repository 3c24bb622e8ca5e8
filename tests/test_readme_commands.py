"""Every command the README prints is run here, or skipped with the reason it cannot run here.

What is pinned: each line of the README's ```bash blocks (comments and blank lines aside) is a
key of ``RUN`` or of ``SKIP`` below, and every key is a line of the README, so a command added to
the README without being classified here fails, and so does one removed from it.  ``RUN``
commands run on this CPU box in seconds, from the checkout (``tlbench`` is ``python -m
tlbench``), with the README's placeholder files (``BASE.json``, ``NEW.json``) answered by two
committed runs of one H200 and every file they write redirected into a temporary folder; each
must exit 0.  ``SKIP`` commands (a GPU, an install into this environment, minutes of compiling,
or the whole test suite this file is part of) are collected and skipped saying why.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
STAGES = "results/h200-gemm-stages/stages.json"
SECOND = "results/h200-gemm-stages/stages-second-process.json"
GPU = "needs a GPU host (device items are timed on the GPU)"

# command -> what its output must hold (a check of stdout), run from the checkout
RUN: dict[str, str] = {
    "tlbench report results/h200-gemm-stages/stages.json": "15 timed, 0 failed, 0 skipped",
    "tlbench report results/h200-gemm-stages/stages.json --stages": "",
    "tlbench check suites/gemv/test_gemv.py": "0 failing their preflight: ok (nothing was compiled)",
    "tlbench search-replay results/h200-tile-sweep/tiles-8192.json.gz": "Kendall tau",
    "tlbench baseline update NEW.json --out-dir results/baselines": "created ",
    "tlbench compare results/h200-gemm-stages/stages.json results/h200-gemm-stages/stages-second-process.json": "no regression",
    "tlbench compare BASE.json NEW.json --markdown compare.md --json": '"exit_code": 0',
    "tlbench history add results/h200-gemm-stages/stages.json --history results/history.sqlite": "",
    "tlbench history show '*8192*-s3' --history results/history.sqlite": "",
    "tlbench compare --history results/history.sqlite results/h200-gemm-stages/stages-second-process.json": "",
    "tlbench dashboard --history results/history.sqlite --out-dir site": "",
    "tlbench export --format github-action-benchmark results/h200-gemm-stages/stages.json --out-dir export": "",
}
SKIP: dict[str, str] = {
    "python3 -m harness.bootstrap && python3 -m pytest suites --benchmark-only --tlbench-backend=auto --benchmark-json=results/latest.json":
        "the main job: installs tlbench into this environment and runs every suite's quick scope (minutes of "
        "compiling; device items need a GPU)",
    "python3 -m harness.bootstrap --dev && python3 -m pytest tests -p no:cacheprovider -rs":
        "the whole test suite, this file included; .ci/run runs it in a fresh virtual environment",
    'pip install "/path/to/tlbench[cpu-torch]" --extra-index-url https://download.pytorch.org/whl/cpu':
        "installs into this environment from a path of the reader's; tests/test_packaging.py builds and installs the wheel",
    'pip install "/path/to/tlbench[nvidia]"': "installs into a GPU host's environment",
    "python3 -m pytest suites/gemv/test_gemv.py --tlbench-scope=smoke --tlbench-kind=compile":
        "compiles every smoke config of both backends (minutes on a CPU box); tests/test_front_door.py compiles one "
        "config per backend of this suite",
    "python3 -m pytest suites/gemv/test_gemv.py --tlbench-scope=smoke --benchmark-json=gemv.json": GPU,
    "export PYTHONPATH=$PWD/.gpu/site:$PWD": "sets up a GPU host's environment (tilelang's GPU build in .gpu/site)",
    "python3 -m pytest suites/gemm/test_stages.py --benchmark-only --tlbench-backend=nvidia --benchmark-json=stages.json": GPU,
    "python3 -m pytest suites/gemm/test_tiles.py --benchmark-only --tlbench-backend=nvidia --tlbench-scope=full --tlbench-devices=0,1":
        "needs a host with two GPUs",
    "python3 -m pytest suites/gemm/test_tiles.py --benchmark-only --tlbench-scope=full --tlbench-search=model":
        GPU + "; tests/test_search_live.py runs the search on a stand-in device",
    'tlbench nightly suites --backend nvidia,ascend --history results/history.sqlite --pytest-args="--tlbench-kind=compile --tlbench-scope=smoke"':
        "runs every suite's compile items (long on a CPU box); tests/test_nightly.py runs nightly on small suites",
}


def readme_commands(text: str = README) -> list[str]:
    """Each command line of the ```bash blocks, its trailing ``# comment`` cut."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(re.sub(r"\s+#\s.*$", "", line).strip())
    return lines


def test_every_readme_command_is_run_or_skipped_here():
    commands = readme_commands()
    assert not set(RUN) & set(SKIP)
    unclassified = [c for c in commands if c not in RUN and c not in SKIP]
    assert not unclassified, f"README commands this test neither runs nor skips: {unclassified}; add each to RUN or SKIP"
    stale = sorted((set(RUN) | set(SKIP)) - set(commands))
    assert not stale, f"no longer in the README: {stale}"


def test_the_extractor_cuts_comments_and_keeps_quotes():
    text = "```bash\n# a comment\ntlbench history show '*8192*-s3'   # the trend\n\nx --a=\"b c\"\n```\n```\nnot bash\n```\n"
    assert readme_commands(text) == ["tlbench history show '*8192*-s3'", 'x --a="b c"']


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("history") / "history.sqlite"
    assert _tlbench(["history", "add", STAGES, "--history", str(db)]).returncode == 0
    return db


def _tlbench(args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "tlbench", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("command", list(RUN))
def test_the_readme_command_runs(command, tmp_path, history):
    if command.startswith("tlbench check"):
        pytest.importorskip("tilelang")  # the preflight traces the body
    words = shlex.split(command)
    assert words[0] == "tlbench"
    placeholders = {"BASE.json": STAGES, "NEW.json": SECOND}
    written = {"--markdown": tmp_path, "--out-dir": tmp_path}  # what the command writes goes to a temporary folder
    args = []
    for before, word in zip(["tlbench", *words[1:]], words[1:]):
        if before == "--history":
            word = str(tmp_path / "history.sqlite") if "history add" in command else str(history)
        elif before in written:
            word = str(written[before] / word)
        args.append(placeholders.get(word, word))
    done = _tlbench(args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert RUN[command] in done.stdout, done.stdout[-3000:]
    assert not any(p.exists() for p in (ROOT / "compare.md", ROOT / "site", ROOT / "export"))
    if "--json" in words:
        assert json.loads(done.stdout)["exit_code"] == 0
    if "dashboard" in words:
        assert (tmp_path / "site" / "index.html").is_file()
    if "--markdown" in words:
        assert (tmp_path / "compare.md").is_file()


@pytest.mark.parametrize("command", list(SKIP))
def test_the_readme_command_needs_another_machine(command):
    pytest.skip(SKIP[command])
