"""The kernel hash covers a body's user helpers unlisted (harness/core/source_closure.py):
the closure follows absolute, ``from pkg import mod``, relative and lazy imports into user
code, stops at the standard library, site-packages and tlbench, and never imports tilelang or
torch to find out (a fresh process checks ``sys.modules``)."""

import json
import subprocess
import sys
import textwrap


def _project(root):
    pkg = root / "mykernels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "body.py").write_text(textwrap.dedent("""
        import json
        import tilelang.language as T
        import torch
        from tlbench.harness.core.sweep import Sweep
        from mykernels import tiles
        from .macros import online_softmax

        def build():
            from mykernels.lazy import late
            return late
    """))
    (pkg / "tiles.py").write_text("from . import deeper\n")
    (pkg / "deeper.py").write_text("X = 1\n")
    (pkg / "macros.py").write_text("def online_softmax():\n    pass\n")
    (pkg / "lazy.py").write_text("late = 1\n")
    (pkg / "unused.py").write_text("nobody imports me\n")
    return pkg


def test_the_closure_follows_user_imports_only(tmp_path):
    pkg = _project(tmp_path)
    script = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from tlbench.harness.core.source_closure import source_closure
        files = source_closure([Path({str(pkg / 'body.py')!r})])
        print(json.dumps({{"files": [f.name for f in files], "imported": sorted(m for m in ("tilelang", "torch", "tvm") if m in sys.modules)}}))
    """)
    env_path = [str(tmp_path), *sys.path]
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": ":".join(env_path), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["files"][0] == "body.py"
    assert sorted(result["files"]) == sorted(["body.py", "__init__.py", "tiles.py", "deeper.py", "macros.py", "lazy.py"])
    assert result["imported"] == []


def test_editing_a_helper_changes_the_kernel_hash(tmp_path):
    from tlbench.harness.core.kernel_traits import modules_hash

    pkg = _project(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        before = modules_hash([pkg / "body.py"])
        (pkg / "macros.py").write_text("def online_softmax():\n    return 2\n")
        after = modules_hash([pkg / "body.py"])
        (pkg / "unused.py").write_text("still nobody\n")
        assert modules_hash([pkg / "body.py"]) == after
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "mykernels" or m.startswith("mykernels.")]:
            del sys.modules[name]
    assert before != after


def _installed(site, name, files):
    """A distribution installed into folder ``site`` (as ``pip install --target`` leaves it):
    its files and a ``.dist-info`` whose RECORD lists ``files``."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in [*files, f"{info.name}/METADATA", f"{info.name}/RECORD"]))
    for f in files:
        (site / f).parent.mkdir(parents=True, exist_ok=True)
        if not (site / f).exists():
            (site / f).write_text("import vendored.deep\n" if f.endswith("__init__.py") else "X = 1\n")


def test_a_distribution_installed_on_pythonpath_is_not_user_code_but_an_editable_one_is(tmp_path):
    """A bundle on PYTHONPATH (tilelang's, on the GPU host) is an installed distribution: the
    closure does not walk it (it walked all of tilelang for every kernel's hash).  An editable
    install, whose RECORD lists only its finder, stays user code."""
    site, project = tmp_path / "bundle", tmp_path / "proj"
    _installed(site, "vendored", ["vendored/__init__.py", "vendored/deep.py"])
    (project / "mine").mkdir(parents=True)
    (project / "mine" / "__init__.py").write_text("")
    (project / "mine" / "helper.py").write_text("Y = 2\n")
    _installed(site, "mine", ["__editable___mine_finder.py"])
    body = project / "body.py"
    body.write_text("import vendored\nfrom mine import helper\n")
    script = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from tlbench.harness.core.source_closure import source_closure
        print(json.dumps([str(f.relative_to({str(tmp_path)!r})) for f in source_closure([Path({str(body)!r})])]))
    """)
    env_path = [str(site), str(project), *sys.path]
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=project,
                         env={"PYTHONPATH": ":".join(env_path), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["proj/body.py", "proj/mine/__init__.py", "proj/mine/helper.py"]
