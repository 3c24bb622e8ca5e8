"""Tables of this campaign, read from its pytest-benchmark JSON files (.json or .json.gz).

usage: python3 results/h200-parity/table.py gemm FILE... | rmsnorm FILE...

gemm: per shape, each GEMM family's fastest correct kernel (the tile sweep ``gemm``, the hand
warp-specialized ``gemm_ws``, ``gemm_splitk``, ``gemm_streamk``) over the cuBLAS item of its own suite and over the tile suite's cuBLAS item,
with the harness status of that kernel's measurement (clean / DRIFT / CAPPED), then how many
items of each family ended in each status.  rmsnorm: per hidden size, the fastest two-pass and
one-pass kernels and torch's RMSNorm, in GB/s and % of the calibrated copy bandwidth where the
records carry ``roofline_calibrated`` (``--tlbench-profile``).
"""

import collections
import gzip
import json
import sys


def records(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for bench in json.load(f)["benchmarks"]:
                rec = bench.get("extra_info", {}).get("tlbench")
                if rec and rec.get("kind") == "device":
                    yield rec


def median(rec):
    return (rec.get("summary") or {}).get("median")


def status(rec):
    return (rec.get("measurement") or {}).get("status") or (rec.get("summary") or {}).get("status") or rec.get("status")


def fastest(recs):
    timed = [r for r in recs if median(r) and (r.get("check") or {}).get("ok", True)]
    return min(timed, key=median) if timed else None


def label(rec):
    config = rec.get("config") or {}
    return " ".join(f"{k}{int(v) if isinstance(v, bool) else v}" for k, v in config.items() if v is not None) or "-"


def us(seconds):
    return f"{seconds * 1e6:.2f} us"


def gemm(paths):
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    counts = collections.defaultdict(collections.Counter)
    for rec in records(paths):
        p = rec.get("problem") or {}
        shape = (p.get("M"), p.get("N"), p.get("K"))
        by[shape][(rec["family"], rec.get("kernel") == "vendor")].append(rec)
        counts[rec["family"]][status(rec)] += 1
    print("| shape | family | fastest kernel | median | status | / its suite's cuBLAS | / tile suite's cuBLAS |")
    print("|---|---|---|---|---|---|---|")
    for shape in sorted(by, key=lambda s: s[0] or 0):
        tile_cublas = fastest(by[shape][("gemm", True)])
        for family in ("gemm", "gemm_ws", "gemm_splitk", "gemm_streamk"):
            best, own = fastest(by[shape][(family, False)]), fastest(by[shape][(family, True)])
            if best is None:
                continue
            ratio = lambda v: f"{median(v) / median(best):.3f}x" if v else "-"
            print(f"| {shape[0]}³ | {family} | {label(best)} | {us(median(best))} | {status(best)} "
                  f"| {ratio(own)} | {ratio(tile_cublas)} |")
        if tile_cublas:
            print(f"| {shape[0]}³ | cuBLAS (tile suite) | A @ B.T | {us(median(tile_cublas))} | {status(tile_cublas)} | | |")
    for family, c in sorted(counts.items()):
        print(f"{family}: " + ", ".join(f"{n} {s}" for s, n in c.most_common()))


def rmsnorm(paths):
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for rec in records(paths):
        kind = "torch" if rec.get("kernel") == "vendor" else rec["family"]
        by[(rec["problem"] or {}).get("N")][kind].append(rec)
    print("| hidden | kernel | config | median | GB/s | % of calibrated copy | status | torch / kernel time |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sorted(by):
        torch = fastest(by[n]["torch"])
        for kind in ("rmsnorm", "rmsnorm_onepass", "torch"):
            best = fastest(by[n][kind])
            if best is None:
                continue
            gbps = (best.get("throughput") or {}).get("gbps_compulsory")
            cal = best.get("roofline_calibrated") or {}
            copy = cal.get("bandwidth_tbps") if cal.get("status") == "ok" else None
            pct = f"{gbps / (copy * 10):.1f} %" if gbps and copy else "-"
            vs = f"{median(torch) / median(best):.3f}x" if torch and kind != "torch" else ""
            print(f"| {n} | {kind} | {label(best)} | {us(median(best))} | {gbps:.0f} | {pct} | {status(best)} | {vs} |")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("gemm", "rmsnorm"):
        sys.exit(__doc__.split("\n\n")[1])
    {"gemm": gemm, "rmsnorm": rmsnorm}[sys.argv[1]](sys.argv[2:])
