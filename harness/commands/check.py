"""``tlbench check PATH...``: every tlbench suite under PATH through its preflight, nothing compiled.

Contract: ``run_check(args)`` collects PATH in this process (``--collect-only
--tlbench-preflight-only``) and prints every finding once, what was checked and a summary.
Exit 0 all pass; 1 findings fail items; 2 unusable input.  A skipped suite file is named.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path
from typing import Any

from .common import EXIT_OK, EXIT_UNUSABLE, exit_codes, parser_args
from ..pytest_plugin.preflight import DEFAULT_DEVICE_GIB, GIB

EXIT_FINDINGS = 1


def register(sub: Any) -> None:
    check = sub.add_parser("check", **parser_args(
        "run the suites' preflight under PATH on CPU, before anything compiles",
        "Collect the suites under PATH and run their preflight, compiling nothing: each suite's own callables on "
        "CPU torch at its smoke size, and every problem the scope runs at its own size on torch's meta device "
        "(the body traced, the inputs' and the reference's shapes, dtypes and counts, nothing allocated) with the "
        "memory its inputs, outputs and reference need against the device's (--device-memory).",
        exit_codes("every suite passes its preflight", "a finding fails items (one line each)",
                   "unusable input (no such path, a suite that does not collect, no tlbench suite)")))
    check.add_argument("paths", nargs="+", metavar="PATH", help="suite files or folders (as pytest takes them)")
    check.add_argument("--backend", default="auto", help="--tlbench-backend: a name, a comma list, or auto (default)")
    check.add_argument("--scope", default="full", choices=("quick", "smoke", "full"),
                       help="--tlbench-scope whose problems are checked (default full: every problem)")
    check.add_argument("--device-memory", type=float, default=None, metavar="GIB",
                       help="the device memory (GiB) every problem is held against (default: the device each backend "
                            f"reports; with none, as on a CPU box, {DEFAULT_DEVICE_GIB} GiB)")
    check.set_defaults(handler=run_check)


class _Collector:
    """Reads the run's preflight answers and collection errors (a pytest plugin object)."""

    def __init__(self) -> None:
        self.found: Any = None  # the run's RunItems (pytest_plugin/state.py); None: the plugin did not load
        self.errors: list[str] = []
        self.skipped: dict[str, int] = {}  # a reason pytest skipped suite files for: how many

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            text = str(report.longreprtext).strip().splitlines()
            self.errors.append(f"{report.nodeid or '.'}: {text[-1] if text else 'collection failed'}")
        elif report.skipped and isinstance(report.longrepr, tuple):  # a module-level skip: (path, line, words)
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
            self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def pytest_collection_finish(self, session: Any) -> None:
        from ..pytest_plugin.state import STATE

        state = session.config.stash.get(STATE, None)
        self.found = state.items if state is not None else None


def run_check(args: argparse.Namespace) -> int:
    import pytest

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"tlbench: no such suite file or folder: {', '.join(missing)}", file=sys.stderr)
        return EXIT_UNUSABLE
    collector = _Collector()
    argv = [*args.paths, "--collect-only", "-q", "-p", "no:cacheprovider", "--tlbench-preflight-only",
            f"--tlbench-backend={args.backend}", f"--tlbench-scope={args.scope}",
            *([f"--tlbench-device-memory={args.device_memory}"] if args.device_memory is not None else [])]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = pytest.main(argv, plugins=[collector])
    found = collector.found
    if collector.errors or (code not in (0, 5) and found is None):
        for line in collector.errors or out.getvalue().strip().splitlines()[-3:]:
            print(f"tlbench: {line}", file=sys.stderr)
        return EXIT_UNUSABLE
    if found is None:
        print("tlbench: tlbench's pytest plugin is not loaded here (pip install tlbench into this environment)", file=sys.stderr)
        return EXIT_UNUSABLE
    for reason, files in collector.skipped.items():
        print(f"{files} suite file(s) skipped: {reason}")
    items = len(found.items_by_id)
    if not items and collector.skipped:
        print(f"tlbench check: {sum(collector.skipped.values())} suite file(s) skipped, nothing else to check")
        return EXIT_OK
    if not items:
        print(f"tlbench: no tlbench suite (a SWEEP and a test taking the tlbench fixture) under {', '.join(args.paths)}", file=sys.stderr)
        return EXIT_UNUSABLE
    for line in found.preflight_lines:
        print(line)
    failing = len(found.preflight_failed)
    memories = sorted({f"{m / GIB:g} GiB" for m in found.preflight_sized.values()})
    print(f"tlbench check: each suite's callables ran on CPU torch at its smoke size; each of the {len(found.preflight_sized)} "
          f"problem(s) of the {args.scope} scope at its own size: the body traced, the inputs, outputs and reference on "
          f"torch's meta device (shapes, dtypes, counts; memory against {' / '.join(memories) or 'the device'}) where no "
          "note says otherwise")
    print(f"tlbench check: {len(found.sweeps)} suite(s), {items} item(s), {failing} failing their preflight"
          + ("" if failing else ": ok") + " (nothing was compiled)")
    return EXIT_FINDINGS if failing else EXIT_OK
