"""Synthetic results files of any size, for compare's scale check (not measurements).

Contract: ``synthetic_run(kind, items, seed, slow=())`` returns a pytest-benchmark document of
``items`` GEMM records of one kind, built from a real record of the committed fixtures (a
compile record of tests/fixtures/compare/compile-cpu2/b1.json, a device record with its
vendor item of tests/fixtures/compare/h200-aa2/aa3.json) with new problem sizes per item and
samples drawn around the real ones (seeded: the same arguments give the same file).  Device
runs hold one vendor item per problem and ``DEVICE_KERNELS_PER_PROBLEM`` kernels; compile runs
one kernel per problem, all in one group (the worst case for a group-wide reference).
``slow`` names case ids whose samples are scaled by ``SLOW_FACTOR``.  These are synthetic:
they test how compare scales and what it says, never a speed.

``python tests/synthetic_runs.py compile|device ITEMS OUT.json [--seed N]`` writes one file.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
from pathlib import Path
from typing import Any, Iterable

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "compare"
DEVICE_KERNELS_PER_PROBLEM = 9
SLOW_FACTOR = 1.2
_SIZES = (256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192)


def _template(kind: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """(document, kernel benchmark, vendor benchmark or None) of a real run."""
    path = FIXTURES / ("compile-cpu2/b1.json" if kind == "compile" else "h200-aa2/aa3.json")
    doc = json.loads(path.read_text())
    kernels = [b for b in doc["benchmarks"] if b["extra_info"]["tlbench"].get("config") is not None]
    vendors = [b for b in doc["benchmarks"] if b["extra_info"]["tlbench"].get("config") is None]
    nvidia = [b for b in kernels if b["extra_info"]["tlbench"]["backend"] == "nvidia"]
    return doc, (nvidia or kernels)[0], (vendors[0] if vendors else None)


def _problems(count: int) -> Iterable[tuple[int, int, int]]:
    n = 0
    for m in _SIZES:
        for k in _SIZES:
            for size in range(1, 10**6):
                if n == count:
                    return
                yield m, size * 64, k
                n += 1
                if size >= count // (len(_SIZES) ** 2) + 1:
                    break


def _scaled(values: list[float], rng: random.Random, factor: float) -> list[float]:
    return [v * factor * rng.uniform(0.98, 1.02) for v in values]


def _bench(template: dict[str, Any], problem: tuple[int, int, int], rng: random.Random, slow: set[str],
           config_id: str | None) -> dict[str, Any]:
    bench = copy.deepcopy(template)
    rec = bench["extra_info"]["tlbench"]
    m, n, k = problem
    rec["problem"] = {**rec["problem"], "M": m, "N": n, "K": k}
    old_problem = rec["case_id"].split("-f16-")[0]
    case_id = rec["case_id"].replace(old_problem, f"gemm-{m}x{n}x{k}", 1)
    if config_id is not None:
        case_id = case_id.rsplit("-", 1)[0] + f"-{config_id}"
        rec["config"] = {**rec["config"], "num_stages": int(config_id[1:]) if config_id[1:].isdigit() else rec["config"]["num_stages"]}
    rec["case_id"] = case_id
    item_id = f"{rec['kind']}-{rec['backend']}-{case_id}"
    bench["name"] = f"test_stages[{item_id}]"
    bench["fullname"] = f"suites/gemm/test_stages.py::test_stages[{item_id}]"
    bench["param"] = item_id
    bench["params"] = {"tlbench_item": item_id}
    factor = (SLOW_FACTOR if case_id in slow else 1.0) * (1 + (m * n * k) / 8192**3)
    for field in ("samples_s", "cpu_samples_s"):
        if rec.get(field):
            rec[field] = _scaled(rec[field], rng, factor)
    if rec.get("machine_probe_cpu_s"):
        rec["machine_probe_cpu_s"] = _scaled(rec["machine_probe_cpu_s"], rng, 1.0)
    measurement = rec.get("measurement") or {}
    for field in ("round_medians_s",):
        if measurement.get(field):
            measurement[field] = _scaled(measurement[field], rng, factor)
    if measurement.get("vs_vendor_rounds"):
        measurement["vs_vendor_rounds"] = _scaled(measurement["vs_vendor_rounds"], rng, 1.0)
    ordered = sorted(rec["samples_s"])
    rec["summary"] = {**rec["summary"], "n": len(ordered), "median": ordered[len(ordered) // 2], "min": ordered[0], "max": ordered[-1]}
    bench.pop("stats", None)
    bench["stats"] = {"min": ordered[0], "max": ordered[-1], "mean": sum(ordered) / len(ordered), "median": ordered[len(ordered) // 2],
                      "rounds": len(ordered), "data": list(rec["samples_s"])}
    return bench


def synthetic_run(kind: str, items: int, seed: int = 0, slow: Iterable[str] = ()) -> dict[str, Any]:
    doc, kernel, vendor = _template(kind)
    rng, slowed = random.Random(seed), set(slow)
    benchmarks = []
    if kind == "compile":
        for index, problem in enumerate(_problems(items)):
            benchmarks.append(_bench(kernel, problem, rng, slowed, None))
    else:
        per = DEVICE_KERNELS_PER_PROBLEM + 1
        for problem in _problems((items + per - 1) // per):
            if vendor is not None:
                benchmarks.append(_bench(vendor, problem, rng, slowed, None))
            for stage in range(DEVICE_KERNELS_PER_PROBLEM):
                benchmarks.append(_bench(kernel, problem, rng, slowed, f"s{stage}"))
        benchmarks = benchmarks[:items]
    out = copy.deepcopy({k: v for k, v in doc.items() if k != "benchmarks"})
    out["benchmarks"] = benchmarks
    backends = sorted({b["extra_info"]["tlbench"]["backend"] for b in benchmarks})
    out["tlbench"] = {**out.get("tlbench", {}), "backends": backends, "failed": [], "skipped": []}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("compile", "device"))
    parser.add_argument("items", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow", action="append", default=[], metavar="CASE_ID", help=f"{SLOW_FACTOR}x slower samples")
    args = parser.parse_args(argv)
    document = synthetic_run(args.kind, args.items, args.seed, args.slow)
    Path(args.out).write_text(json.dumps(document) + "\n")
    print(f"wrote {args.out}: {len(document['benchmarks'])} {args.kind} items")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
