"""tests/shape_guard.py, the own-code guard, on sources written here (no upstream file): a copy
renamed, re-literalled, re-commented and reflowed is found, run and share; code that does the
same job in another structure is not; imports and docstrings never make a run; the command's
exit status says whether anything was found."""

from __future__ import annotations

from pathlib import Path

import shape_guard

ORIGINAL = '''
def blend(weights, values, scale, limit):
    total = 0.0
    count = 0
    for w, v in zip(weights, values):
        if w <= 0:
            continue
        total += w * v
        count += 1
    if count == 0:
        return None
    mean = total / count
    return min(mean * scale, limit)
'''

# The same statements, every name and literal changed, comments and a docstring added, two
# statements broken over several lines, one written with an extra operand.
DISGUISED = '''
def mix(ws, xs, factor, cap):
    """A docstring the original does not have."""
    acc = 1.5  # another literal
    n = 7
    for a, b in zip(
        ws,
        xs,
    ):
        if a <= 0.5:
            continue
        acc += a * b * 2
        n += 9
    if n == 12:
        return None
    avg = acc / n
    return max(avg * factor,
               cap)
'''

# The same job in another structure: a comprehension and builtins, no loop.
RESTRUCTURED = '''
def blend(weights, values, scale, limit):
    kept = [(w, v) for w, v in zip(weights, values) if w > 0]
    if not kept:
        return None
    return min(sum(w * v for w, v in kept) / len(kept) * scale, limit)
'''


def test_a_renamed_reflowed_copy_is_one_run_of_every_line():
    ours, theirs = shape_guard.line_shapes(DISGUISED), shape_guard.line_shapes(ORIGINAL)
    assert len(ours.shapes) == len(theirs.shapes) == 12  # the docstring is left out, broken statements are one line each
    runs = shape_guard.shared_runs(ours.shapes, theirs.shapes, min_run=8)
    assert runs == [shape_guard.Run(ours_start=0, theirs_start=0, length=12)]


def test_another_structure_shares_no_run():
    ours, theirs = shape_guard.line_shapes(RESTRUCTURED), shape_guard.line_shapes(ORIGINAL)
    assert shape_guard.shared_runs(ours.shapes, theirs.shapes, min_run=8) == []
    assert shape_guard.shared_runs(ours.shapes, theirs.shapes, min_run=2) == []


def test_a_block_of_imports_is_no_run():
    imports = "".join(f"import module_{i}\nfrom package_{i} import name_{i}\n" for i in range(10))
    assert shape_guard.line_shapes(imports).shapes == ()


def test_a_shorter_copy_than_the_threshold_is_not_a_run():
    head = "\n".join(ORIGINAL.strip().splitlines()[:7])  # def + six statements: 7 logical lines
    ours, theirs = shape_guard.line_shapes(head), shape_guard.line_shapes(ORIGINAL)
    assert shape_guard.shared_runs(ours.shapes, theirs.shapes, min_run=8) == []
    assert shape_guard.shared_runs(ours.shapes, theirs.shapes, min_run=7)[0].length == 7


def _tree(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "tree"
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text)
    return folder


def test_the_command_reports_the_copy_and_exits_1(tmp_path, capsys):
    upstream = tmp_path / "checkout" / "examples" / "maths"  # a fake checkout: one file written here
    upstream.mkdir(parents=True)
    (upstream / "example_blend.py").write_text(ORIGINAL)
    ours = _tree(tmp_path, disguised="import os\n" + DISGUISED + "\n\nVALUE = 1\n", restructured=RESTRUCTURED)
    assert shape_guard.main(["--upstream", str(tmp_path / "checkout"), str(ours)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "disguised.py" in out[0] and "examples/maths/example_blend.py" in out[0], out
    assert "92% of 13 lines" in out[0] and "longest 12 lines from line 3" in out[0], out[0]
    assert out[1].startswith("shape_guard: 1 finding(s); 2 file(s) checked against 1 upstream file(s)")
    (ours / "disguised.py").unlink()
    assert shape_guard.main(["--upstream", str(tmp_path / "checkout"), str(ours)]) == 0


def test_the_command_refuses_a_folder_without_python(tmp_path, capsys):
    assert shape_guard.main(["--upstream", str(tmp_path), str(tmp_path)]) == 2
    assert "no Python file under" in capsys.readouterr().err
