"""Best kernel vs its GPU's vendor item at one problem, from pytest-benchmark JSON files with tlbench records.

Usage: python3 best_vendor.py [--problem gemm-8192x8192x8192-f16] RUN.json[.gz] ...

For each file: the device items of that problem, the fastest kernel by median, the vendor
item measured on the same GPU (``device_uuid``), their ratio as a speed (vendor median /
kernel median: above 1 the kernel is faster), and how many items carry each
``summary.status`` (clean, DRIFT, CAPPED).  Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path


def load(path: Path) -> dict:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def describe(path: Path, problem: str) -> str:
    records = [b["extra_info"]["tlbench"] for b in load(path)["benchmarks"]]
    here = [r for r in records if r.get("kind") == "device" and r["case_id"].startswith(problem + "-")]
    vendors = [r for r in here if r["case_id"].endswith("-vendor")]
    kernels = [r for r in here if not r["case_id"].endswith("-vendor")]
    if not kernels or not vendors:
        return f"{path.name}: no kernel and vendor items of {problem}"
    best = min(kernels, key=lambda r: r["summary"]["median"])
    vendor = next((v for v in vendors if v.get("device_uuid") == best.get("device_uuid")), vendors[0])
    gpus = len({r.get("device_uuid") for r in here})
    status = dict(Counter(r["summary"].get("status") for r in here))
    b_ms, v_ms = best["summary"]["median"] * 1e3, vendor["summary"]["median"] * 1e3
    return (f"{path.name}: {len(here)} items at {problem} on {gpus} GPU(s) {status}; best {best['case_id']} "
            f"{b_ms:.3f} ms ({best['summary'].get('status')}) / vendor {v_ms:.3f} ms ({vendor['summary'].get('status')}) "
            f"= {v_ms / b_ms:.3f}x vendor speed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="gemm-8192x8192x8192-f16")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.files:
        print(describe(path, args.problem))
    return 0


if __name__ == "__main__":
    sys.exit(main())
