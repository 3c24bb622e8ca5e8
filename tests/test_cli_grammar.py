"""One grammar for every ``tlbench`` subcommand: files are ``-o/--output``, folders ``--out-dir``,
the history is ``--history DB`` (never a positional), partial runs are accepted with
``--allow-partial``, and every ``--help`` ends with the exit codes (3 included)."""

from __future__ import annotations

import argparse

import pytest

from tlbench.harness.cli import build_parser

OLD_SPELLINGS = {"--out", "--dir", "--accept-partial"}


def _commands() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every leaf parser: compare, report, ..., history add/import-dir/show, baseline update."""
    out = []

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and prefix:
            out.append((prefix, parser))
        for action in subs:
            for name, child in action.choices.items():
                walk(f"{prefix} {name}".strip(), child)

    walk("", build_parser())
    return sorted(out, key=lambda kv: kv[0])


COMMANDS = _commands()


def test_every_subcommand_is_here():
    names = {name for name, _ in COMMANDS}
    assert {"compare", "report", "nightly", "recover", "export", "dashboard", "calibrate", "merge",
            "history add", "history import-dir", "history show", "baseline update"} <= names


@pytest.mark.parametrize("name, parser", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_help_ends_with_the_exit_codes(name, parser):
    text = " ".join(parser.format_help().split())
    assert "Exit codes: 0 " in text and "2 " in text and "3 internal error" in text, name


@pytest.mark.parametrize("name, parser", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_one_spelling_per_option(name, parser):
    options = {s for a in parser._actions for s in a.option_strings}
    assert not options & OLD_SPELLINGS, (name, options & OLD_SPELLINGS)
    for action in parser._actions:
        if "--output" in action.option_strings:
            assert action.option_strings == ["-o", "--output"], name
        if action.dest == "history" and not action.option_strings:
            pytest.fail(f"{name}: the history database is a positional; it is --history DB everywhere")
    partial = [a for a in parser._actions if "partial" in a.dest]
    assert all(a.option_strings == ["--allow-partial"] for a in partial), name
