"""The conformance table: each upstream example's suite and what its runs say, from the files alone.

Contract: ``python3 results/conformance/table.py RUN.json... [--suites DIR] [--readme FILE]``
reads pytest-benchmark JSON files written by tlbench runs over ``suites/conformance`` (plain or
``.gz``; any mix of backends, kinds and machines) and prints one Markdown row per suite file
``DIR/test_<example>.py`` (default: this checkout's ``suites/conformance``):

- example, and the upstream paths: every ``example("<path>")`` the suite calls (the loader
  ``conformance_examples.py`` beside it: tilelang's ``examples/<path>``, or the rewrite of it
  bundled in ``tilelang_examples/<path>``), then every module beside the suite that it imports
  and that is the user's own (a port), named as such;
- lines written: the non-blank lines of the suite file and of its ports (the examples are
  tilelang's, or stand in for them: not counted);
- NVIDIA compile, Ascend compile: the suite's compile items on that backend, ``ok n/n`` (and
  how many were skipped, why) or ``FAILED k of n`` with the first failure's words, or why every
  item was skipped (``no body`` where the suite has no body for that backend);
- GPU device: the device items that ran on a GPU (``ok n/n``; at the largest problem - the one
  whose vendor item takes longest - the best config's median and
  its time over the vendor item's), or ``not run yet`` where every device item was skipped for
  want of a device (or no file holds one).

Where two files hold the same item, the later run wins: files are read in the order of their
pytest-benchmark ``datetime`` (when the run was taken), not in the order given, so a shell glob
cannot put a rerun before the run it mends; files without one count as earliest, in the order
given.  ``--readme FILE`` writes the table between the
``<!-- conformance-table -->`` markers of FILE instead of printing it.  Exit 0; 2 on a file that
cannot be read (one line naming it).  Reads JSON only: no tlbench, tilelang or torch import.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SUITES = HERE.parent.parent / "suites" / "conformance"
MARK = "<!-- conformance-table -->"
EXAMPLE = re.compile(r"""\bexample\(["']([\w./-]+\.py)["']\)""")
IMPORT = re.compile(r"^from (\w+) import ", re.M)
LOADER = "conformance_examples"
NO_DEVICE = ("device timing unavailable", "no CUDA GPU", "no device", "not installed", "bisheng")


class Unreadable(Exception):
    """A file that is not a readable pytest-benchmark JSON file (exit 2)."""


@dataclass
class Cell:
    """The items of one suite, backend and kind: passed records, failures, skip reasons."""

    passed: dict[str, dict] = field(default_factory=dict)  # case key -> record
    failed: dict[str, str] = field(default_factory=dict)  # case key -> error
    skipped: dict[str, str] = field(default_factory=dict)  # case key -> reason

    def add(self, key: str, status: str, payload) -> None:
        for table in (self.passed, self.failed, self.skipped):
            table.pop(key, None)
        {"passed": self.passed, "failed": self.failed, "skipped": self.skipped}[status][key] = payload


def _load(path: Path) -> dict:
    try:
        raw = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
        data = json.loads(raw)
    except (OSError, ValueError, EOFError) as exc:
        raise Unreadable(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise Unreadable(f"{path} is not a pytest-benchmark JSON file (no 'benchmarks' list)")
    return data


def _suite_of(item: dict) -> str | None:
    """The suite file's stem, from the pytest node id (``.../test_topk.py::test_topk[...]``)."""
    nodeid = item.get("nodeid") or item.get("fullname") or ""
    match = re.search(r"(test_\w+)\.py::", nodeid)
    return match.group(1) if match else None


def collect(paths: list[Path]) -> dict[tuple[str, str, str], Cell]:
    """(suite stem, backend, kind) -> Cell, over every file, the earliest run first."""
    cells: dict[tuple[str, str, str], Cell] = {}

    def cell(item: dict) -> tuple[Cell | None, str]:
        suite = _suite_of(item)
        if suite is None:
            return None, ""
        key = (suite, item.get("backend", "?"), item.get("kind", "?"))
        return cells.setdefault(key, Cell()), str(item.get("case_id"))

    runs = sorted((_load(path) for path in paths), key=lambda data: str(data.get("datetime") or ""))
    for data in runs:
        for bench in data["benchmarks"]:
            record = dict((bench.get("extra_info") or {}).get("tlbench") or {})
            record.setdefault("nodeid", bench.get("fullname", ""))
            target, case = cell(record)
            if target is not None:
                target.add(case, "passed", record)
        run = data.get("tlbench") or {}
        for entry in run.get("failed") or []:
            target, case = cell(entry)
            if target is not None:
                target.add(case, "failed", " ".join(str(entry.get("error") or "").split()))
        for entry in run.get("skipped") or []:
            target, case = cell(entry)
            if target is not None:
                target.add(case, "skipped", " ".join(str(entry.get("reason") or "").split()))
    return cells


def _short(text: str, limit: int = 110) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compile_cell(cell: Cell | None) -> str:
    if cell is None:
        return "not run yet"
    ran = len(cell.passed) + len(cell.failed)
    if cell.failed:
        first = next(iter(cell.failed.values()))
        return f"FAILED {len(cell.failed)} of {ran}: {_short(first)}"
    if cell.passed:
        skipped = f"; {len(cell.skipped)} skipped: {_short(_skip_words(cell.skipped))}" if cell.skipped else ""
        return f"ok {len(cell.passed)}/{ran}{skipped}"
    if cell.skipped:
        words = _skip_words(cell.skipped)
        return words if words == "no body" else "skipped: " + _short(words)
    return "not run yet"


def _skip_words(skipped: dict[str, str]) -> str:
    """``no body`` where every skip says the backend has none, else the distinct reasons."""
    reasons = sorted(set(skipped.values()))
    if all(reason.startswith("no body for") for reason in reasons):
        return "no body"
    return "; ".join(reasons)


def _median(record: dict) -> float | None:
    value = (record.get("summary") or {}).get("median")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def device_cell(cell: Cell | None) -> str:
    if cell is None:
        return "not run yet"
    real_skips = {k: r for k, r in cell.skipped.items() if not any(w in r for w in NO_DEVICE)}
    if not cell.passed and not cell.failed:
        return "skipped: " + _short("; ".join(sorted(set(real_skips.values())))) if real_skips else "not run yet"
    vendor = [r for r in cell.passed.values() if r.get("config") is None]
    kernels = {k: r for k, r in cell.passed.items() if r.get("config") is not None}
    ran = len(cell.passed) + len(cell.failed)
    words = f"ok {len(cell.passed)}/{ran}" if not cell.failed else f"FAILED {len(cell.failed)} of {ran}: {_short(next(iter(cell.failed.values())))}"
    by_problem: dict[str, list[tuple[float, str]]] = {}
    for key, rec in kernels.items():
        median = _median(rec)
        if median is not None:
            by_problem.setdefault(json.dumps(rec.get("problem"), sort_keys=True), []).append((median, key))
    vendor_of = {json.dumps(r.get("problem"), sort_keys=True): m for r in vendor if (m := _median(r)) is not None}
    if by_problem:
        # the realistic size: the problem whose vendor item takes longest (else whose best kernel does)
        problem = max(by_problem, key=lambda p: (vendor_of.get(p, 0.0), min(by_problem[p])[0]))
        best, case = min(by_problem[problem])
        words += f"; at the largest problem, best {best * 1e3:.3f} ms ({case.split('-', 1)[-1]})"
        if vendor_of.get(problem):
            words += f", {best / vendor_of[problem]:.2f}x the vendor item's time"
    return words


def _written(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def suite_rows(suites: Path) -> list[tuple[str, str, list[str], int]]:
    """(stem, example name, sources, lines written) per suite file, in name order; a source is
    an upstream path, or ``port: <file>`` for a module of the user's own beside the suite."""
    rows = []
    for suite in sorted(suites.glob("test_*.py")):
        text = suite.read_text()
        sources, lines = [f"`examples/{path}`" for path in EXAMPLE.findall(text)], _written(text)
        for module in IMPORT.findall(text):
            beside = suites / f"{module}.py"
            if module != LOADER and beside.exists():
                sources.append(f"port: `{beside.name}`")
                lines += _written(beside.read_text())
        rows.append((suite.stem, suite.stem.removeprefix("test_"), sources, lines))
    return rows


def table(paths: list[Path], suites: Path) -> str:
    cells = collect(paths)
    out = ["| example | upstream path | lines written | NVIDIA compile | Ascend compile | GPU device |",
           "|---|---|---|---|---|---|"]
    for stem, name, upstream, lines in suite_rows(suites):
        paths_text = "<br>".join(upstream) or "(none found)"
        out.append(f"| {name} | {paths_text} | {lines} | {compile_cell(cells.get((stem, 'nvidia', 'compile')))} "
                   f"| {compile_cell(cells.get((stem, 'ascend', 'compile')))} | {device_cell(cells.get((stem, 'nvidia', 'device')))} |")
    return "\n".join(out) + "\n"


def write_readme(readme: Path, text: str) -> None:
    body = readme.read_text()
    parts = body.split(MARK)
    if len(parts) != 3:
        raise Unreadable(f"{readme} needs exactly two '{MARK}' lines around the table")
    readme.write_text(parts[0] + MARK + "\n" + text + MARK + parts[2])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", type=Path, help="pytest-benchmark JSON files (.json or .json.gz)")
    parser.add_argument("--suites", type=Path, default=DEFAULT_SUITES, help="the conformance suite folder")
    parser.add_argument("--readme", type=Path, help="write the table between the markers of this file")
    args = parser.parse_args(argv)
    try:
        text = table(args.runs, args.suites)
        if args.readme:
            write_readme(args.readme, text)
        else:
            sys.stdout.write(text)
    except Unreadable as exc:
        print(f"table.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
