"""Record the fastest correct config per problem of one results file (also a recovered, partial
one) in a best-configs file, as ``--tlbench-autotune`` does at the end of a run that finishes.

usage: python3 results/h200-parity/best_from_run.py RUN.json[.gz] results/best_configs.json

A run stopped at its time limit never reaches the autotune step; its journal still holds every
measured item (``tlbench recover``).  The winner of each problem is picked from what that file
measured (``candidates`` says how many), with the same rule (lowest median of the correct
kernels, ratio to the in-run vendor item) and stamped with the run's own date, not today's.
"""

import gzip
import json
import sys

from tlbench.harness.results.best_configs import pick_best, update_best_file


def main(run_path: str, best_path: str) -> None:
    opener = gzip.open if run_path.endswith(".gz") else open
    with opener(run_path, "rt") as f:
        run = json.load(f)
    records = [b["extra_info"]["tlbench"] for b in run["benchmarks"] if "tlbench" in b.get("extra_info", {})]
    infos = run["machine_info"]["tlbench"]["backends"]
    entries = pick_best(records, {name: str(info.get("accelerator")) for name, info in infos.items()})
    versions = ", ".join(sorted({str(info.get("tilelang")) for info in infos.values()})) or None
    doc = update_best_file(best_path, entries, versions)
    stamped = {e.key for e in entries}
    for entry in doc["entries"]:
        if (entry["backend"], entry["device"], entry["problem_id"]) in stamped:
            entry["date"] = run["datetime"][:19] + "+00:00"
    with open(best_path, "w") as f:
        f.write(json.dumps(doc, indent=2) + "\n")
    for e in entries:
        ratio = f"{e.vs_vendor:.3f}x the in-run vendor item" if e.vs_vendor else "no vendor item"
        print(f"{e.problem_id}: {e.case_id} {e.median_s * 1e6:.2f} us, {ratio}, of {e.candidates}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
