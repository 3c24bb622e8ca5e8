"""Plug-ins by entry-point group, without importing them until they are used.

Contract: ``load_group(group)`` returns ``{name: loader}``, ``loader()`` importing the ``package.module:attribute``
an entry point names (``loader_ref(loader)``: that string, without importing): every installed distribution's
entry points of the group, plus the source tree's ``pyproject.toml`` ones for names none provides (a checkout on
``PYTHONPATH`` finds its own plug-ins).  Nothing is imported here.
"""

from __future__ import annotations

import re
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def import_path(path: str) -> Callable[[], Any]:
    """A loader for ``package.module:attribute``."""

    def load() -> Any:
        module, _, attr = path.partition(":")
        obj = import_module(module.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj

    load.ref = path.strip()  # type: ignore[attr-defined]
    return load


def loader_ref(loader: Callable[[], Any]) -> str | None:
    """The ``module:attribute`` a loader of ``load_group`` imports, known without importing."""
    ref = getattr(loader, "ref", None)
    return ref if isinstance(ref, str) and ":" in ref else None


def source_tree_group(group: str, pyproject: Path = PYPROJECT) -> dict[str, str]:
    """``name = "module:attr"`` lines of ``[project.entry-points."<group>"]`` in pyproject.toml."""
    if not pyproject.is_file():
        return {}
    found: dict[str, str] = {}
    inside = False
    header = re.compile(r"^\s*\[(.+)\]\s*$")
    entry = re.compile(r'^\s*"?([A-Za-z0-9_.\-]+)"?\s*=\s*"([^"]+)"\s*$')
    for line in pyproject.read_text(encoding="utf-8").splitlines():
        match = header.match(line)
        if match:
            inside = match.group(1).replace(" ", "") in (f'project.entry-points."{group}"', f"project.entry-points.{group}")
            continue
        match = entry.match(line) if inside else None
        if match:
            found[match.group(1)] = match.group(2)
    return found


def load_group(group: str) -> dict[str, Callable[[], Any]]:
    found = {name: import_path(path) for name, path in source_tree_group(group).items()}
    found.update({ep.name: _entry_point_loader(ep) for ep in entry_points(group=group)})
    return found


def _entry_point_loader(ep: Any) -> Callable[[], Any]:
    def load() -> Any:
        return ep.load()

    load.ref = ep.value  # type: ignore[attr-defined]
    return load
