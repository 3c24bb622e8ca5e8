"""The reference, rendered from the code: ``kernel_sweep`` and its rules as ``help()`` shows them,
every ``tlbench`` subcommand's ``--help``, and every ``--tlbench-*`` option of the pytest plugin.

Contract: ``render() -> str`` is the whole reference as Markdown, a function of the code only
(no terminal width, machine or Python-version-dependent argparse layout); ``main`` prints it, or
with ``-o FILE`` writes it (the committed copy: harness/reference.md, tests/test_reference.py).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path
from typing import Any, Callable

import tlbench
from ..cli import build_parser
from ..pytest_plugin.options import pytest_addoption
from ..results.compare import compare_rules, verdict_words

REGENERATE = "python3 -m tlbench.harness.sweep_api.reference -o harness/reference.md"
HEADER = f"""# tlbench reference

Generated from the code by `{REGENERATE}`; tests/test_reference.py fails when this file and the
code disagree. The same text is in `help(tlbench.kernel_sweep)`, `tlbench <command> --help` and
`pytest --help` (the `tlbench` group). The manual is [README.md](../README.md).

- [`kernel_sweep`](#kernel_sweep) and the check rules
- [The `tlbench` command](#the-tlbench-command)
- [pytest options](#pytest-options)
- [Verdicts](#verdicts): the words `tlbench compare` prints and the rules that give them
"""


def _signature(obj: Callable[..., Any]) -> str:
    """``name(a, b, *, c=None, ...)``: names and defaults, no annotations (their text depends on
    the Python version)."""
    parts, star = [], False
    for p in inspect.signature(obj).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"{obj.__name__}({', '.join(parts)})"


def front_door() -> str:
    sweep = tlbench.kernel_sweep
    out = ["## kernel_sweep", "", "`from tlbench import kernel_sweep` (`help(tlbench.kernel_sweep)`):", "",
           "```text", _signature(sweep), "", inspect.getdoc(sweep), "```", "",
           "### Check rules and `pruned`", "",
           f"`from tlbench import {', '.join(tlbench.FRONT_DOOR[1:])}`: what `check=` takes, and what `validate=` "
           "returns for a predicted compiler refusal.", ""]
    for name in tlbench.FRONT_DOOR[1:]:
        obj = getattr(tlbench, name)
        out += [f"- `{_signature(obj)}`: " + " ".join(inspect.getdoc(obj).split())]
    return "\n".join(out) + "\n"


def _help_text(action: argparse.Action, prog: str) -> str:
    """argparse's own expansion of ``%(default)s`` and ``%%``."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    params["prog"] = prog
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return " ".join((action.help % params).split())


def _metavar(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.metavar is not None:
        meta = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None:
        meta = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        meta = (action.dest if not action.option_strings else action.dest.upper())
    return {None: meta, "?": f"[{meta}]", "*": f"[{meta} ...]", "+": f"{meta} [{meta} ...]"}.get(action.nargs, meta)


def _action_line(action: argparse.Action, prog: str) -> str:
    meta = _metavar(action)
    names = ", ".join(action.option_strings) if action.option_strings else ""
    head = f"{names} {meta}".strip() if names else meta
    text = _help_text(action, prog)
    if action.option_strings and action.choices is not None and action.metavar is not None:
        text = (text + f" (one of: {', '.join(map(str, action.choices))})").strip()
    return f"- `{head}`" + (f": {text}" if text else "")


def _command(prog: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    out = [f"{'#' * level} `{prog}`", ""]
    if parser.description:
        out += [" ".join(parser.description.split()), ""]
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    lines = [_action_line(a, prog) for a in parser._actions
             if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and a.help != argparse.SUPPRESS]
    for action in subs:
        said = {choice.dest: choice.help or "" for choice in action._choices_actions}
        lines += [f"- `{name}`: " + " ".join(said.get(name, "").split()) for name in action.choices]
    out += lines + ([""] if lines else [])
    if parser.epilog:
        out += [" ".join(parser.epilog.split()), ""]
    for action in subs:
        for name, child in action.choices.items():
            out += _command(f"{prog} {name}", child, level + 1)
    return out


def command_line() -> str:
    out = ["## The `tlbench` command", "",
           "`tlbench` (or `python -m tlbench`); every subcommand's `--help` says the same as its section here.", ""]
    out += _command("tlbench", build_parser(), 3)[2:]  # the heading of the top parser is this section's
    return "\n".join(out).rstrip("\n") + "\n"


class _Recorder:
    """What pytest's ``parser.getgroup(...).addoption(*names, **attrs)`` is given, kept in order."""

    def __init__(self) -> None:
        self.parser = argparse.ArgumentParser(prog="pytest", add_help=False)
        self.title = ""

    def getgroup(self, name: str, description: str = "") -> "_Recorder":
        self.title = description or name
        return self

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.parser.add_argument(*names, **attrs)


def pytest_options() -> str:
    recorder = _Recorder()
    pytest_addoption(recorder)
    out = ["## pytest options", "",
           f"The plugin's group in `pytest --help` (\"{recorder.title}\"). Each backend adds its own "
           "(`--tlbench-<backend>-...`) from its traits.", ""]
    for action in recorder.parser._actions:
        line = _action_line(action, "pytest")
        default = action.default
        if action.option_strings and action.nargs != 0 and default not in (None, argparse.SUPPRESS) and "default" not in line:
            line += f" (default {default})"
        out.append(line)
    return "\n".join(out) + "\n"


def verdicts() -> str:
    out = ["## Verdicts", "",
           "Every word `tlbench compare`, `nightly` and the dashboard print, worst first (harness/results/compare/verdict_words.py). "
           "A word that can gate fails the gate (exit 1) where its item gates.", ""]
    out += [f"- `{w.word}` ({'can gate' if w.gates else 'not a gate by itself'}): {w.meaning}" for w in verdict_words.WORDS]
    rules = inspect.getdoc(compare_rules).split("The rules:", 1)[1].strip("\n")
    out += ["", "An item timed in both runs is judged by the first of these rules that applies "
            f"(harness/results/compare/compare_rules.py; in order: {', '.join(f'`{n}`' for n in compare_rules.RULES)}):", "", rules]
    return "\n".join(out) + "\n"


def render() -> str:
    return "\n".join([HEADER, front_door(), command_line(), pytest_options(), verdicts()])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tlbench.harness.sweep_api.reference",
                                 description="Print (or write) tlbench's reference, rendered from the code.")
    ap.add_argument("-o", "--output", type=Path, default=None, help="write it to this file (the committed copy: harness/reference.md)")
    args = ap.parse_args(argv)
    if args.output is None:
        sys.stdout.write(render())
    else:
        args.output.write_text(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
