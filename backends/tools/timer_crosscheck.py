"""Do the timers agree?  The same kernels timed with CUDA events, CUPTI, a CUDA graph and ncu.

Usage on a GPU host (repo root, tlbench importable; ncu on PATH for the ncu columns):

    python -m tlbench.backends.tools.timer_crosscheck run --suite SUITE.py [--suite ...] [-k EXPR]
        [--case CASE_ID ...] [--timers events,cupti,graph] [--ncu none,base] [--count 10]
        [--no-flush | --l2-flush write|read] [--out-dir DIR]

``run`` times the selected cases (full scope) one subprocess each: through the harness's sampling
loop per timer (DIR/harness.json), under ``ncu --clock-control none`` and ``base`` (DIR/ncu-*.csv),
then prints the table of medians (DIR/crosscheck.md, .json).  ``table DIR`` re-makes the table
from the files.  Bad arguments: one line, exit 2.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from ..gpu.flush_choice import FLUSH_MODES
from .case_selection import UsageProblem, keyword_matches, load_sweep, select  # noqa: F401 - the tool's names
from .timer_table import CLOCK_METRIC, METRIC, NCU_MODES, TIMERS, CrosscheckRow, agreement
from .timer_table import calls_by_case, clock_by_case, markdown, ncu_clock_rows, ncu_kernel_rows, table

ME = [sys.executable, "-m", "tlbench.backends.tools.timer_crosscheck"]  # its own steps, one subprocess each
MARKER_CYCLES = 1000


def _cases(args) -> list[Any]:
    from tlbench.harness.results.export.best_configs import load_best

    return select([load_sweep(s) for s in args.suite], args.k, args.case or (), load_best)


def _options(timer: str, l2_flush: str) -> dict[str, Any]:
    return {"nvidia_timer": timer, "nvidia_l2_flush": l2_flush}


def _backend(timer: str, l2_flush: str):
    from ..nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions(_options(timer, l2_flush)))


def _compile_all(backend, cases, options: dict[str, Any]) -> dict[str, Any]:
    """Each kernel built (through tilelang's cache): first in child processes on a 4+ CPU host
    (harness/measure/cache_warmer.py: builds on threads of one process do not overlap), then loaded here; a
    CompileError kept as its result."""
    from tlbench.harness.core.backend_api import CompileError
    from tlbench.harness.core.cases import VendorCase
    from tlbench.harness.measure.cache_warmer import processes, warmer_for
    from tlbench.harness.measure.cpu_plan import usable_cpus
    from tlbench.harness.measure.compile_pool import CompilePool
    from tlbench.harness.measure.worker_spec import factory_ref

    kernels = [c for c in cases if not isinstance(c, VendorCase)]
    warmer = warmer_for(factory_ref(type(backend)), options, processes(usable_cpus()))
    pool = CompilePool(workers=max(1, min(8, usable_cpus())), warmer_of=lambda _backend: warmer)
    built: dict[str, Any] = {}
    try:
        pool.prefetch(backend, kernels)
        for case in kernels:
            try:
                built[case.case_id] = pool.get(backend, case)
            except CompileError as exc:
                built[case.case_id] = exc
    finally:
        pool.close()
    return built


def run_harness(args) -> int:
    from tlbench.harness.core.cases import MeasurePolicy
    from tlbench.harness.core.record import BenchItem
    from tlbench.harness.measure.device_session import InProcessSession
    from tlbench.harness.measure.outcome import RunContext
    from tlbench.harness.measure.rounds import measure_items

    cases = _cases(args)
    backend = _backend("cupti", args.l2_flush)
    built = _compile_all(backend, cases, _options("cupti", args.l2_flush))

    def compiled(_backend, case):
        result = built[case.case_id]
        if isinstance(result, Exception):
            raise result
        return result

    policy = MeasurePolicy(flush_l2=not args.no_flush)
    items = [BenchItem("nvidia", "device", c) for c in cases]
    results: dict[str, dict[str, Any]] = {c.case_id: {} for c in cases}
    for timer in args.timers.split(","):
        backend.timer_name = timer
        session = InProcessSession(backend, RunContext(policy=policy, compile_rounds=1, seed=args.seed, compiled=compiled))
        for item, outcome in zip(items, measure_items(session, items, policy)):
            rec = outcome.record or {}
            if outcome.status == "timed":
                entry = {"median_s": rec["summary"]["median"], "status": rec["summary"]["status"], "n": rec["summary"]["n"],
                         "method": rec.get("method"), "check_ok": (rec.get("check") or {}).get("ok"),
                         "sm_clock_mhz": kept_batch_clock(rec), "notes": rec.get("notes", [])}
            else:
                stage = f" [{outcome.stage}]" if outcome.stage else ""
                entry = {"median_s": None, "status": f"{outcome.status}{stage}", "reason": outcome.reason}
            results[item.case.case_id][timer] = entry
            print(f"{timer:6s} {item.case.case_id}: {entry['status']} {entry['median_s'] or entry.get('reason')}", flush=True)
        session.close()
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    return 0


def kept_batch_clock(record: dict[str, Any]) -> float | None:
    """The median NVML SM clock (MHz) read after each batch the record's samples come from (a re-measured record's
    dropped first attempt left out); None without telemetry."""
    batches = (record.get("measurement") or {}).get("batches") or ()
    clocks = [b["telemetry"]["sm_clock_mhz"] for b in batches if not b.get("dropped") and (b.get("telemetry") or {}).get("sm_clock_mhz")]
    return float(statistics.median(clocks)) if clocks else None


def timed_calls(args) -> tuple[Any, list[tuple[str, Callable[[], Any], Callable[[], Any]]]]:
    """The selected cases built, each as (case id, the exact call the timers time, the L2 flush before it), with the
    backend that made them; a kernel that did not build is left out, said on stderr."""
    from tlbench.harness.core.cases import VendorCase

    cases = _cases(args)
    backend = _backend("events", args.l2_flush)  # its timer only hands over the exact timed call and flush; no profiler
    built = _compile_all(backend, cases, _options("events", args.l2_flush))
    inputs: dict[Any, Any] = {}
    calls = []
    for case in cases:
        runnable = case if isinstance(case, VendorCase) else built[case.case_id]
        if isinstance(runnable, Exception):
            print(f"{case.case_id}: not built ({runnable}); left out", file=sys.stderr)
            continue
        if case.problem not in inputs:
            inputs[case.problem] = backend.make_inputs(case.problem, args.seed)
        timer = backend.timer(runnable, inputs[case.problem], not args.no_flush)
        calls.append((case.case_id, timer.fn, timer.flush))
    return backend, calls


def run_launch(args) -> int:
    """ncu's target: marker, separator, marker, then per case ``count`` x (separator, call) and a marker."""
    import torch

    backend, calls = timed_calls(args)
    byte = torch.zeros(1, dtype=torch.uint8, device=backend.device)
    separator = (lambda flush: flush) if not args.no_flush else (lambda _flush: byte.zero_)
    if not calls:
        raise UsageProblem("no selected case was built: nothing to launch")
    for _, fn, flush in calls:  # first use (module load, lazy library set-up) before profiling starts
        for _ in range(2):
            separator(flush)()
            fn()
    torch.cuda.synchronize()
    marker = lambda: torch.cuda._sleep(MARKER_CYCLES)  # noqa: E731
    torch.cuda.profiler.start()
    marker()
    separator(calls[0][2])()
    marker()
    for _, fn, flush in calls:
        for _ in range(args.count):
            separator(flush)()
            fn()
        marker()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    Path(args.manifest).write_text(json.dumps({"cases": [c for c, _, _ in calls], "count": args.count}) + "\n")
    return 0


def ncu_command(mode: str, flush: bool, launch_args: Sequence[str]) -> list[str]:
    return ["ncu", "--profile-from-start", "off", "--clock-control", mode, "--cache-control", "all" if flush else "none",
            "--metrics", f"{METRIC},{CLOCK_METRIC}", "--csv", *ME, "launch", *launch_args]


def selection_args(args) -> list[str]:
    out = [a for s in args.suite for a in ("--suite", s)]
    out += ["-k", args.k] if args.k else []
    out += [a for c in (args.case or ()) for a in ("--case", c)]
    out += ["--seed", str(args.seed), "--l2-flush", args.l2_flush] + (["--no-flush"] if args.no_flush else [])
    return out


def run_all(args, runner: Callable[..., Any] = subprocess.run) -> int:
    modes = [m for m in args.ncu.split(",") if m]
    if modes and shutil.which("ncu") is None:
        raise UsageProblem("ncu is not on PATH: put Nsight Compute's ncu there, or pass --ncu '' for the timers alone")
    _cases(args)  # bad suites or selections stop here, before any step starts
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sel = selection_args(args)
    runner([*ME, "harness", *sel, "--timers", args.timers, "--out", str(out / "harness.json")], check=True)
    failed = []
    for mode in modes:
        manifest = out / f"manifest-{mode}.json"
        manifest.unlink(missing_ok=True)
        with open(out / f"ncu-{mode}.csv", "w") as fh:
            done = runner(ncu_command(mode, not args.no_flush, [*sel, "--count", str(args.count), "--manifest", str(manifest)]),
                          stdout=fh)
        if done.returncode != 0:  # the table still comes, without this column
            failed.append(mode)
            print(f"timer_crosscheck: ncu --clock-control {mode} exited {done.returncode} (its output: {out / f'ncu-{mode}.csv'})",
                  file=sys.stderr)
    return max(make_table(str(out)), 1 if failed else 0)


def make_table(out_dir: str) -> int:
    """The table from DIR's files; 1 when an ncu file is there but cannot be read (its column stays empty)."""
    out = Path(out_dir)
    if not (out / "harness.json").is_file():
        raise UsageProblem(f"{out / 'harness.json'}: no such file (made by the harness step of run)")
    harness = json.loads((out / "harness.json").read_text())
    ncu: dict[str, dict[str, list[float]]] = {}
    clocks: dict[str, dict[str, float]] = {}
    status = 0
    for mode in NCU_MODES:
        csv_path, manifest_path = out / f"ncu-{mode}.csv", out / f"manifest-{mode}.json"
        if not manifest_path.is_file():
            continue
        manifest = json.loads(manifest_path.read_text())
        try:
            text = csv_path.read_text()
            kernel_rows = ncu_kernel_rows(text)
            ncu[mode] = calls_by_case(kernel_rows, manifest["cases"], manifest["count"])
            clocks[mode] = clock_by_case(kernel_rows, ncu_clock_rows(text), manifest["cases"])
        except (OSError, ValueError) as exc:
            print(f"timer_crosscheck: {csv_path}: {exc}", file=sys.stderr)
            status = 1
    rows = [CrosscheckRow.from_results(cid, timers, {m: ncu[m].get(cid, []) for m in ncu}, {m: clocks[m].get(cid) for m in clocks})
            for cid, timers in harness.items()]
    lines = [table(rows), "", *agreement(rows)]
    print("\n".join(lines))
    (out / "crosscheck.md").write_text(markdown(rows) + "\n\n" + "\n".join(f"- {a}" for a in agreement(rows)) + "\n")
    (out / "crosscheck.json").write_text(json.dumps([{"case_id": r.case_id, "harness_s": r.harness_s, "status": r.status,
                                                       "ncu_s": r.ncu_s, "harness_mhz": r.harness_mhz, "ncu_mhz": r.ncu_mhz}
                                                      for r in rows], indent=1) + "\n")
    return status


def _timers(value: str) -> str:
    bad = [t for t in value.split(",") if t not in TIMERS]
    if bad or not value:
        raise argparse.ArgumentTypeError(f"timers are a comma list of {', '.join(TIMERS)}, got {value!r}")
    return value


def _modes(value: str) -> str:
    bad = [m for m in value.split(",") if m and m not in NCU_MODES]
    if bad:
        raise argparse.ArgumentTypeError(f"ncu clock-control modes are a comma list of {', '.join(NCU_MODES)} (or ''), got {value!r}")
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m tlbench.backends.tools.timer_crosscheck", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="mode", required=True)
    for name in ("run", "harness", "launch"):
        p = sub.add_parser(name)
        p.add_argument("--suite", action="append", required=True, help="a suite file declaring SWEEP (repeatable)")
        p.add_argument("-k", default=None, help="pytest's -k expression over the case id")
        p.add_argument("--case", action="append", help="an exact case id (repeatable)")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--no-flush", action="store_true", help="no L2 flush before the calls (ncu --cache-control none)")
        p.add_argument("--l2-flush", choices=FLUSH_MODES, default="write",
                       help="how the timers' flush empties L2 (--tlbench-nvidia-l2-flush): write (default) or read")
        if name in ("run", "harness"):
            p.add_argument("--timers", type=_timers, default=",".join(TIMERS))
        if name in ("run", "launch"):
            p.add_argument("--count", type=int, default=10, help="calls of each case under ncu")
        if name == "run":
            p.add_argument("--ncu", type=_modes, default=",".join(NCU_MODES))
            p.add_argument("--out-dir", default="timer-crosscheck")
        if name == "harness":
            p.add_argument("--out", required=True)
        if name == "launch":
            p.add_argument("--manifest", required=True)
    t = sub.add_parser("table")
    t.add_argument("out_dir")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.mode == "table":
            return make_table(args.out_dir)
        return {"run": run_all, "harness": run_harness, "launch": run_launch}[args.mode](args)
    except UsageProblem as exc:
        print(f"timer_crosscheck: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:
        print(f"timer_crosscheck: {exc.cmd[0] if exc.cmd else 'a step'} exited {exc.returncode}: {' '.join(map(str, exc.cmd))}",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
