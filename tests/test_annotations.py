"""Every annotation in harness/ names something its module can see: ``typing.get_type_hints``
resolves each class, function and method defined there (``Sweep`` once annotated its quick-scope
fields with GEMM types it never imported, so reading its hints raised ``NameError``).  Modules
are imported for real; harness/ imports no backend, tilelang or torch, so this runs anywhere."""

import importlib
import inspect
import typing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(".".join(["tlbench", *p.relative_to(ROOT).with_suffix("").parts]).removesuffix(".__init__")
                 for p in (ROOT / "harness").rglob("*.py"))


def unresolved(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    bad = []
    for name, obj in vars(module).items():
        if getattr(obj, "__module__", None) != module_name or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        members = [(name, obj)] + [(f"{name}.{m}", f) for m, f in vars(obj).items() if inspect.isfunction(f)] \
            if inspect.isclass(obj) else [(name, obj)]
        for label, target in members:
            try:
                typing.get_type_hints(target)
            except Exception as exc:  # NameError, mostly: a name the module never imports
                bad.append(f"{label}: {type(exc).__name__}: {exc}")
    return bad


def test_sweep_hints_resolve():
    from tlbench.harness.core.sweep import Sweep

    hints = typing.get_type_hints(Sweep)
    assert "quick_problems" in hints and "quick_backend_configs" in hints


def test_the_check_sees_an_unimported_name(tmp_path, monkeypatch):
    (tmp_path / "hint_probe.py").write_text("from __future__ import annotations\n\n\nclass C:\n    x: Missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert unresolved("hint_probe") == ["C: NameError: name 'Missing' is not defined"]


@pytest.mark.parametrize("module_name", MODULES)
def test_every_harness_annotation_resolves(module_name):
    assert unresolved(module_name) == []
