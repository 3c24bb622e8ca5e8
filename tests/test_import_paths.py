"""The tree you read is the tree you import: how our own modules name each other.

Inside one top-level folder (harness/, backends/, suites/) an import of our own code is relative, so an editor
or a drawing of a plain checkout follows it by path; an import that crosses into another top-level folder
names it absolutely (``tlbench.harness...``), because a relative import cannot climb above the folder it
starts in when the checkout is read as files (``tlbench/`` links each folder into the package).  Suites'
``test_*.py`` files are the user's side and import ``tlbench`` like a user.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("harness", "backends", "suites")


def _modules():
    for top in TOPS:
        for path in sorted((ROOT / top).rglob("*.py")):
            if not (top == "suites" and path.name.startswith("test_")) and path.name != "conftest.py":
                yield path


def misplaced_imports(path: Path, source: str) -> list[str]:
    """Imports of our own code in ``path`` (a file under ROOT) that break the rule, as ``line: text``."""
    parts = path.relative_to(ROOT).parent.parts  # ('backends', 'nvidia')
    top = parts[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.level > len(parts) + 1:
                found.append(f"{node.lineno}: from {'.' * node.level}{node.module or ''} climbs above {top}/")
            elif node.level == len(parts) + 1:  # lands on the package root: it left its top-level folder
                found.append(f"{node.lineno}: from {'.' * node.level}{node.module or ''} leaves {top}/: "
                             f"write tlbench.{node.module or ''}")
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            if name == f"tlbench.{top}" or name.startswith(f"tlbench.{top}."):
                found.append(f"{node.lineno}: {name} is in {top}/ itself: import it relatively")
    return found


def test_the_rule_reader_flags_both_mistakes():
    path = ROOT / "backends" / "nvidia" / "x.py"
    source = "from ...harness.core import budget\nimport tlbench.backends.gpu\nfrom ..gpu import timing\n"
    found = misplaced_imports(path, source)
    assert [line.split(":")[0] for line in found] == ["1", "2"]
    assert misplaced_imports(path, "from tlbench.harness.core import budget\nfrom . import traits\n") == []


@pytest.mark.parametrize("top", TOPS)
def test_own_imports_are_relative_inside_a_folder_and_absolute_across(top):
    bad = [f"{path.relative_to(ROOT)}:{line}" for path in _modules() if path.relative_to(ROOT).parts[0] == top
           for line in misplaced_imports(path, path.read_text())]
    assert not bad, "\n".join(bad)
