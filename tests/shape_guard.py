"""The own-code guard: runs of same-shape lines between our Python sources and upstream files.

Contract:
- ``line_shapes(text)`` reduces Python source to one shape per logical line: every name is
  ``N`` (keywords kept), every number ``1``, every string ``S``; comments, blank lines and
  indentation are dropped, and a statement broken over several physical lines is one line.
  Operands joined by arithmetic or attribute dots are one operand. Import statements and lone
  strings (docstrings) are left out: a block of imports has one shape in every module.
  So renaming identifiers, changing literals and reflowing lines leave the shapes unchanged.
- ``shared_runs(ours, theirs, min_run)`` finds every maximal run of ``min_run`` or more
  consecutive equal shapes that two sources share (``Run``: where it starts in each, how long).
- ``guard(paths, upstream_files, min_run)`` compares every ``.py`` file under ``paths`` with
  every upstream file and returns one ``Finding`` per pair that shares such a run: the share of
  our file's lines inside those runs and the longest run.
- As a command: ``python3 tests/shape_guard.py --upstream DIR [--min-run 8] [PATH ...]``
  (``DIR``: a tilelang checkout or its ``examples`` folder; ``PATH`` defaults to suites/,
  backends/ and tests/ of this checkout) prints one row per finding and exits 1 when there is
  any, 0 when there is none, 2 when ``DIR`` holds no Python file.
"""

from __future__ import annotations

import argparse
import io
import keyword
import sys
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
                  tokenize.ENDMARKER}


@dataclass(frozen=True)
class Shaped:
    """A source reduced to its logical lines' shapes, with the physical line each starts on."""

    shapes: tuple[str, ...]
    first_lines: tuple[int, ...]


@dataclass(frozen=True)
class Run:
    ours_start: int  # index into our logical lines
    theirs_start: int
    length: int


@dataclass(frozen=True)
class Finding:
    ours: Path
    theirs: Path
    lines: int  # our file's logical lines
    covered: int  # of them, inside a shared run
    longest: Run
    first_line: int  # the physical line in our file where the longest run starts

    @property
    def share(self) -> float:
        return self.covered / self.lines if self.lines else 0.0


def _token_shape(tok: tokenize.TokenInfo) -> str:
    if tok.type == tokenize.NAME:
        return tok.string if keyword.iskeyword(tok.string) else "N"
    if tok.type == tokenize.NUMBER:
        return "1"
    if tok.type == tokenize.STRING or tok.type in _FSTRING_TYPES:
        return "S"
    return tok.string


_FSTRING_TYPES = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)}


def line_shapes(text: str) -> Shaped:
    """Every logical line of ``text`` as its shape (see the contract); ``SyntaxError`` if it does not tokenize."""
    shapes: list[str] = []
    starts: list[int] = []
    current: list[str] = []
    start = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in SKIPPED_TOKENS:
                continue
            if tok.type == tokenize.NEWLINE:
                _close(current, start, shapes, starts)
                current = []
                continue
            if not current:
                start = tok.start[0]
            current.append(_token_shape(tok))
    except (tokenize.TokenError, IndentationError) as exc:
        raise SyntaxError(str(exc)) from exc
    _close(current, start, shapes, starts)
    return Shaped(tuple(shapes), tuple(starts))


def _close(tokens: list[str], start: int, shapes: list[str], starts: list[int]) -> None:
    """Ends a logical line.  Left out: an import statement (a block of imports is one shape everywhere)
    and a lone string (a docstring: prose, not code)."""
    if tokens and tokens[0] not in ("import", "from") and tokens != ["S"]:
        shapes.append(" ".join(_collapse(tokens)))
        starts.append(start)


ATOMS = {"N", "1", "S"}
JOINERS = {".", "+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"}


def _collapse(tokens: list[str]) -> list[str]:
    """Operands joined by attribute dots or arithmetic are one operand (``bx * block_M`` and ``top``,
    ``T.copy`` and ``copy`` read alike), and adjacent strings are one string (implicit concatenation,
    which reflowing adds or removes); a comma before a closing bracket is dropped."""
    out: list[str] = []
    for t in tokens:
        if t in ATOMS and len(out) >= 2 and out[-1] in JOINERS and out[-2] in ATOMS:
            out[-2:] = []
            t = "N"
        if t == "S" and out and out[-1] == "S":
            continue
        if t in (")", "]", "}") and out and out[-1] == ",":
            out.pop()  # a trailing comma, which a formatter adds when it breaks the brackets over lines
        out.append(t)
    return out


def shared_runs(ours: tuple[str, ...], theirs: tuple[str, ...], min_run: int) -> list[Run]:
    """Every maximal run of at least ``min_run`` equal consecutive shapes the two share."""
    if len(ours) < min_run or len(theirs) < min_run:
        return []
    starts: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for j in range(len(theirs) - min_run + 1):
        starts[theirs[j:j + min_run]].append(j)
    return _maximal_runs([(i, j) for i in range(len(ours) - min_run + 1)
                          for j in starts.get(ours[i:i + min_run], ())], min_run)


def _maximal_runs(hits: list[tuple[int, int]], min_run: int) -> list[Run]:
    """Window hits (i, j) chained along their diagonal into maximal runs."""
    hit_set = set(hits)
    runs = []
    for i, j in sorted(hits):
        if (i - 1, j - 1) in hit_set:
            continue  # inside a run that starts earlier
        n = 1
        while (i + n, j + n) in hit_set:
            n += 1
        runs.append(Run(i, j, n + min_run - 1))
    return runs


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend([path] if path.is_file() else sorted(p for p in path.rglob("*.py") if p.is_file()))
    return files


def _shaped(files: list[Path]) -> dict[Path, Shaped]:
    out = {}
    for file in files:
        try:
            out[file] = line_shapes(file.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue  # not Python this interpreter reads: nothing to compare
    return out


def guard(paths: list[Path], upstream_files: list[Path], min_run: int = 8) -> list[Finding]:
    """One finding per (our file, upstream file) pair that shares a run of ``min_run``+ shapes."""
    theirs = _shaped(upstream_files)
    index: dict[tuple[str, ...], list[tuple[Path, int]]] = defaultdict(list)
    for file, shaped in theirs.items():
        for j in range(len(shaped.shapes) - min_run + 1):
            index[shaped.shapes[j:j + min_run]].append((file, j))
    findings = []
    for file, shaped in _shaped(python_files(paths)).items():
        hits: dict[Path, list[tuple[int, int]]] = defaultdict(list)
        for i in range(len(shaped.shapes) - min_run + 1):
            for other, j in index.get(shaped.shapes[i:i + min_run], ()):
                hits[other].append((i, j))
        for other, pairs in hits.items():
            runs = _maximal_runs(pairs, min_run)
            covered = {k for run in runs for k in range(run.ours_start, run.ours_start + run.length)}
            longest = max(runs, key=lambda r: r.length)
            findings.append(Finding(file, other, len(shaped.shapes), len(covered), longest,
                                    shaped.first_lines[longest.ours_start]))
    return sorted(findings, key=lambda f: (str(f.ours), -f.covered, str(f.theirs)))


def upstream_python_files(root: Path) -> list[Path]:
    """The Python files of a tilelang checkout's ``examples`` folder, or of ``root`` itself."""
    examples = root / "examples"
    return python_files([examples if examples.is_dir() else root])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", type=Path, required=True, help="a tilelang checkout or its examples folder")
    parser.add_argument("--min-run", type=int, default=8, help="the shortest run of same-shape lines reported")
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders to check (default: suites backends tests)")
    args = parser.parse_args(argv)
    upstream = upstream_python_files(args.upstream.expanduser())
    if not upstream:
        print(f"shape_guard: no Python file under {args.upstream}: point --upstream at a tilelang checkout", file=sys.stderr)
        return 2
    paths = args.paths or [ROOT / "suites", ROOT / "backends", ROOT / "tests"]
    findings = guard(paths, upstream, args.min_run)
    for f in findings:
        print(f"{_rel(f.ours)}  {f.share:4.0%} of {f.lines} lines in runs of {args.min_run}+ against "
              f"{_rel(f.theirs, args.upstream)}; longest {f.longest.length} lines from line {f.first_line}")
    checked = len(python_files(paths))
    print(f"shape_guard: {len(findings)} finding(s); {checked} file(s) checked against {len(upstream)} upstream file(s), "
          f"runs of {args.min_run}+ same-shape lines")
    return 1 if findings else 0


def _rel(path: Path, base: Path | None = None) -> str:
    for root in ([base.expanduser().resolve()] if base else []) + [ROOT, Path.cwd()]:
        try:
            return str(path.resolve().relative_to(root))
        except ValueError:
            continue
    return str(path)


if __name__ == "__main__":
    sys.exit(main())
