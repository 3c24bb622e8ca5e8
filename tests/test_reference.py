"""harness/reference.md is the reference rendered from the code, and says what the code says.

What is pinned: the committed file is, byte for byte, what
``python3 -m tlbench.harness.sweep_api.reference`` renders now (so a ``kernel_sweep`` argument, a
subcommand option or a ``--tlbench-*`` option added without regenerating fails here, with the
command that regenerates it); the rendering holds every ``kernel_sweep`` parameter, every
front-door rule, every ``tlbench`` subcommand (leaves included) with every option, every option
of the plugin's group as pytest itself registers it, and every verdict word; the README links
to the file.
"""

import argparse
import inspect
import subprocess
import sys
from pathlib import Path

from _pytest.config.argparsing import Parser

import tlbench
from tlbench.harness.sweep_api import reference
from tlbench.harness.cli import build_parser
from tlbench.harness.pytest_plugin.options import pytest_addoption
from tlbench.harness.results.compare.verdict_words import WORDS

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "harness" / "reference.md"
TEXT = reference.render()


def test_the_committed_reference_is_the_rendered_one():
    assert COMMITTED.read_text() == TEXT, \
        f"harness/reference.md is out of date with the code: regenerate it with `{reference.REGENERATE}` and commit it"


def test_the_module_prints_and_writes_it(tmp_path):
    out = subprocess.run([sys.executable, "-m", "tlbench.harness.sweep_api.reference"], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0 and out.stdout == TEXT, out.stderr
    assert reference.main(["-o", str(tmp_path / "ref.md")]) == 0 and (tmp_path / "ref.md").read_text() == TEXT


def test_every_kernel_sweep_argument_and_rule_is_there():
    section = TEXT.split("## kernel_sweep", 1)[1].split("## The `tlbench` command", 1)[0]
    assert inspect.getdoc(tlbench.kernel_sweep) in section
    for name in inspect.signature(tlbench.kernel_sweep).parameters:
        assert f"{name}" in section.split("\n\n", 3)[2], name  # the signature line
    for name in tlbench.FRONT_DOOR[1:]:
        assert f"- `{name}(" in section, name


def _leaves(prefix, parser):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    yield prefix, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaves(f"{prefix} {name}", child)


def test_every_subcommand_and_option_is_there():
    for prog, parser in _leaves("tlbench", build_parser()):
        head = f"# `{prog}`\n" if prog != "tlbench" else "## The `tlbench` command\n"
        assert head in TEXT, prog
        section = TEXT.split(head, 1)[1].split("\n#", 1)[0]
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in section or f", {option}" in section, (prog, option)


def test_every_pytest_option_of_the_plugin_is_there_as_pytest_registers_it():
    parser = Parser(_ispytest=True)
    pytest_addoption(parser)
    group = parser.getgroup("tlbench")
    options = [name for option in group.options for name in option.names()]
    section = TEXT.split("## pytest options", 1)[1].split("## Verdicts", 1)[0]
    listed = [line.split("`")[1].split(" ")[0] for line in section.splitlines() if line.startswith("- `")]
    assert listed == options


def test_every_verdict_word_is_there():
    section = TEXT.split("## Verdicts", 1)[1]
    for word in WORDS:
        assert f"- `{word.word}` (" in section, word.word


def test_the_readme_links_the_reference():
    assert "(harness/reference.md)" in (ROOT / "README.md").read_text()
