"""Timing honesty check: the harness median next to Nsight Compute's for the same kernel.

Usage on a GPU host: ``python -m tlbench.backends.tools.ncu_crosscheck interleaved --case CASE_ID
[--pairs 3] [--out-dir DIR]`` (harness and ncu processes alternated, every pair's ratio against
+-2 %), or step by step ``harness --case CASE_ID`` (the harness median per repeat), ``launch --case
CASE_ID --count 20`` under ``ncu --clock-control none --metrics gpu__time_duration.sum --csv`` (the
only metric ``compare`` reads), and ``compare HARNESS.json NCU.csv``.

Contract: ``ncu_durations_s`` and ``ratio_range`` are pure; the other modes need a GPU; a case id
that does not parse, or a failed measurement, exits with one line saying so.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys

from .timer_table import UNIT_SECONDS, within

_CASE = re.compile(
    r"^gemm-(?P<M>\d+)x(?P<N>\d+)x(?P<K>\d+)-(?P<dt>f16|bf16)-bm(?P<bm>\d+)-bn(?P<bn>\d+)-bk(?P<bk>\d+)-t(?P<t>\d+)-"
    r"(?:auto-s(?P<s>\d+)|(?P<form>manual|serial))$"
)


def parse_case(case_id: str):
    """The built-in GEMM's case of that id (suites/gemm/body.py, declared as the suites declare it)."""
    from . import suites_dir

    suites_dir()
    from tlbench.suites.gemm.sweep import GEMM, config, problem

    from tlbench import kernel_sweep

    m = _CASE.match(case_id)
    if not m:
        raise SystemExit(f"cannot parse case id {case_id!r}; expected e.g. gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3")
    dtype = {"f16": "float16", "bf16": "bfloat16"}[m["dt"]]
    form = m["form"] or "auto"
    axes = config(int(m["bm"]), int(m["bn"]), int(m["bk"]), int(m["t"]), form, int(m["s"]) if form == "auto" else None)
    (case,) = kernel_sweep("gemm", **GEMM, sizes=[problem(int(m["M"]), int(m["N"]), int(m["K"]), dtype)], configs=[axes],
                           module=__name__).cases("nvidia", "full")
    return case


def _backend():
    from ..nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions())


def run_harness(case_id: str, repeats: int, out: str | None) -> None:
    from tlbench.harness.core.cases import MeasurePolicy
    from tlbench.harness.core.record import BenchItem
    from tlbench.harness.measure.device_session import InProcessSession
    from tlbench.harness.measure.outcome import RunContext
    from tlbench.harness.measure.rounds import measure_items

    backend = _backend()
    case = parse_case(case_id)
    ctx = RunContext(policy=MeasurePolicy(), compile_rounds=1, seed=1, compiled=lambda b, c: b.compile(c, cold=False))
    session = InProcessSession(backend, ctx)
    item = BenchItem("nvidia", "device", case)
    medians = []
    check_ok = False
    for i in range(repeats):
        outcome = measure_items(session, [item], ctx.policy)[0]
        if outcome.status != "timed":
            raise SystemExit(f"{case_id}: {outcome.status} [{outcome.stage}] {outcome.reason}")
        rec = outcome.record
        s = rec["summary"]
        check_ok = rec["check"]["ok"]
        medians.append(s["median"])
        print(f"repeat {i}: median {s['median'] * 1e3:.4f} ms  n={s['n']} cv={s['cv']:.4f} method={rec['method']} status={s['status']}", flush=True)
    spread = statistics.stdev(medians) / statistics.fmean(medians) if len(medians) > 1 else 0.0
    print(f"check ok={check_ok}; medians {[round(m * 1e3, 4) for m in medians]} ms; "
          f"CV of medians {spread * 100:.3f} %")
    if out:
        with open(out, "w") as fh:
            json.dump({"case": case_id, "medians_s": medians, "check_ok": check_ok,
                       "cv_of_medians": spread}, fh)


def run_launch(case_id: str, count: int) -> None:
    import torch

    from ..gpu.timing import L2Flush

    backend = _backend()
    case = parse_case(case_id)
    compiled = backend.compile(case, cold=False)
    inputs = backend.make_inputs(case.problem, 1, case.config)
    args = case.family.kernel_args(inputs)  # A, B and the output C
    flush = L2Flush(backend.device, True)
    for _ in range(count):
        flush()
        compiled.handle(*args)
    torch.cuda.synchronize()



def ncu_durations_s(path: str) -> list[float]:
    """gpu__time_duration.sum values (converted to seconds) from ``ncu --csv`` output."""
    with open(path, newline="") as fh:
        lines = [ln for ln in fh if ln.startswith('"')]
    return [float(row["Metric Value"].replace(",", "")) * UNIT_SECONDS[row["Metric Unit"]]
            for row in csv.DictReader(lines) if row.get("Metric Name") == "gpu__time_duration.sum"]


def compare(harness_json: str, ncu_csv: str) -> None:
    with open(harness_json) as fh:
        h = json.load(fh)
    ncu = ncu_durations_s(ncu_csv)
    if not ncu:
        raise SystemExit(f"no gpu__time_duration.sum rows in {ncu_csv}")
    ncu_median = statistics.median(ncu)
    harness_median = statistics.median(h["medians_s"])
    print(f"{h['case']}: harness median {harness_median * 1e3:.4f} ms, "
          f"ncu median {ncu_median * 1e3:.4f} ms (n={len(ncu)}), "
          f"ratio harness/ncu {harness_median / ncu_median:.4f}; "
          f"CV of harness medians over {len(h['medians_s'])} runs {h['cv_of_medians'] * 100:.3f} %")


def ratio_range(pairs: list[tuple[float, float]]) -> tuple[float, float, str]:
    """(lowest, highest harness/ncu ratio) over the pairs, and one line saying whether the whole range lies within
    +-TOLERANCE, or by how much it misses."""
    ratios = [h / n for h, n in pairs]
    lo, hi = min(ratios), max(ratios)
    return lo, hi, f"harness/ncu ratio over {len(ratios)} alternating pairs: {lo:.4f} .. {hi:.4f} ({within(lo, hi)})"


def run_interleaved(case_id: str, pairs: int, out_dir: str, kernel_regex: str, count: int) -> int:
    """Alternate harness and ncu processes on one kernel; print each pair and the range."""
    import os
    import subprocess

    os.makedirs(out_dir, exist_ok=True)
    me = [sys.executable, "-m", "tlbench.backends.tools.ncu_crosscheck"]
    measured: list[tuple[float, float]] = []
    for i in range(pairs):
        h_json = os.path.join(out_dir, f"harness-{i}.json")
        subprocess.run([*me, "harness", "--case", case_id, "--repeats", "1", "--out", h_json], check=True)
        ncu_csv = os.path.join(out_dir, f"ncu-{i}.csv")
        with open(ncu_csv, "w") as fh:
            subprocess.run(["ncu", "--clock-control", "none", "--metrics", "gpu__time_duration.sum", "-k", f"regex:{kernel_regex}",
                            "--csv", *me, "launch", "--case", case_id, "--count", str(count)], stdout=fh, check=True)
        with open(h_json) as fh:
            harness_median = statistics.median(json.load(fh)["medians_s"])
        ncu = ncu_durations_s(ncu_csv)
        if not ncu:
            raise SystemExit(f"no gpu__time_duration.sum rows in {ncu_csv} (kernel regex {kernel_regex!r})")
        measured.append((harness_median, statistics.median(ncu)))
        print(f"pair {i}: harness {harness_median * 1e3:.4f} ms, ncu {measured[-1][1] * 1e3:.4f} ms (n={len(ncu)}), "
              f"ratio {measured[-1][0] / measured[-1][1]:.4f}", flush=True)
    lo, hi, line = ratio_range(measured)
    print(f"{case_id}: {line}")
    with open(os.path.join(out_dir, "summary.json"), "w") as fh:
        json.dump({"case": case_id, "pairs": measured, "ratio_min": lo, "ratio_max": hi, "line": line}, fh)
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tlbench.backends.tools.ncu_crosscheck", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    h = sub.add_parser("harness")
    h.add_argument("--case", required=True)
    h.add_argument("--repeats", type=int, default=3)
    h.add_argument("--out")
    launch = sub.add_parser("launch")
    launch.add_argument("--case", required=True)
    launch.add_argument("--count", type=int, default=20)
    inter = sub.add_parser("interleaved")
    inter.add_argument("--case", required=True)
    inter.add_argument("--pairs", type=int, default=3)
    inter.add_argument("--count", type=int, default=20)
    inter.add_argument("--kernel-regex", default="gemm_kernel")
    inter.add_argument("--out-dir", default="ncu-crosscheck")
    c = sub.add_parser("compare")
    c.add_argument("harness_json")
    c.add_argument("ncu_csv")
    args = parser.parse_args(argv)
    if args.mode == "harness":
        run_harness(args.case, args.repeats, args.out)
    elif args.mode == "interleaved":
        run_interleaved(args.case, args.pairs, args.out_dir, args.kernel_regex, args.count)
    elif args.mode == "launch":
        run_launch(args.case, args.count)
    else:
        compare(args.harness_json, args.ncu_csv)


if __name__ == "__main__":
    sys.exit(main())
