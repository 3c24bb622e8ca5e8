"""Do two runs of the same suites hold the same items, ids, plans and schedules?

Usage: ``python -m tlbench.backends.tools.same_items BEFORE.json AFTER.json [--ignore-key KEY ...]``

For a refactor that must not change behaviour: it compares two pytest-benchmark JSON files
written by tlbench (same suites, options and seed) item by item - the set of benchmark
names and tlbench ids, each timed record's fields (plan with its schedule model, budget,
check, case parameters, method) except the measured numbers (samples, summary,
throughput, compile phases), the failed and skipped items with their stage, reason and
error, and each sweep's search-space diagnostics.  Keys named by ``--ignore-key`` (say a
key the new code adds) are dropped on both sides.  Prints one line per difference and
exits 1 if there is any, else prints what matched and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

MEASURED = ("samples_s", "summary", "throughput", "compile_phases_s", "name", "fullname")


def _strip(value: Any, ignored: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v, ignored) for k, v in value.items() if k not in ignored}
    if isinstance(value, list):
        return [_strip(v, ignored) for v in value]
    return value


def _timed(doc: dict[str, Any], ignored: set[str]) -> dict[str, Any]:
    out = {}
    for bench in doc.get("benchmarks", []):
        rec = (bench.get("extra_info") or {}).get("tlbench") or {}
        out[bench["fullname"]] = _strip({k: v for k, v in rec.items() if k not in MEASURED}, ignored)
    return out


def _untimed(doc: dict[str, Any], ignored: set[str]) -> dict[str, Any]:
    top = doc.get("tlbench") or {}
    return {r["nodeid"]: _strip(r, ignored) for r in [*top.get("failed", []), *top.get("skipped", [])]}


def _sweeps(doc: dict[str, Any], ignored: set[str]) -> dict[str, Any]:
    return _strip((doc.get("tlbench") or {}).get("sweeps") or {}, ignored)


def differences(before: dict[str, Any], after: dict[str, Any], ignored: set[str]) -> list[str]:
    out = []
    for label, read in (("timed item", _timed), ("failed/skipped item", _untimed), ("sweep", _sweeps)):
        a, b = read(before, ignored), read(after, ignored)
        out += [f"{label} only before: {k}" for k in sorted(set(a) - set(b))]
        out += [f"{label} only after: {k}" for k in sorted(set(b) - set(a))]
        for key in sorted(set(a) & set(b)):
            if a[key] != b[key]:
                fields = sorted(f for f in set(a[key]) | set(b[key]) if a[key].get(f) != b[key].get(f))
                out.append(f"{label} {key}: differs in {', '.join(fields)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="same_items", description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--ignore-key", action="append", default=[], help="a record key to leave out on both sides")
    args = parser.parse_args(argv)
    docs = []
    for path in (args.before, args.after):
        try:
            with open(path, encoding="utf-8") as fh:
                docs.append(json.load(fh))
        except (OSError, json.JSONDecodeError) as exc:
            print(f"same_items: {path}: {exc}", file=sys.stderr)
            return 2
    diffs = differences(docs[0], docs[1], set(args.ignore_key))
    for line in diffs:
        print(line)
    if diffs:
        return 1
    timed, untimed = len(_timed(docs[0], set())), len(_untimed(docs[0], set()))
    print(f"same: {timed} timed items, {untimed} failed/skipped items, {len(_sweeps(docs[0], set()))} sweeps "
          "(ids, plans, schedules, budgets, checks, reasons, diagnostics)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
