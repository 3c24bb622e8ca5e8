"""Record the fastest correct config per problem of one results file (also a partial one) in a
best-configs file, as ``--tlbench-autotune`` does at the end of a finished run.

usage: python -m tlbench.harness.tools.best_from_run RUN.json[.gz] results/best_configs.json

Contract: updates the file in place (other problems kept), prints a line per problem; a refused
run file raises ``ResultsError``; bad arguments: usage, exit 1.
"""

import datetime
import sys

from ..results.export.best_configs import pick_best, update_best_file
from ..results.files.store import load_results


def main(run_path: str, best_path: str) -> None:
    run = load_results(run_path)  # JSON or .json.gz, checked; its timed records
    infos = run.document["machine_info"]["tlbench"]["backends"]
    entries = pick_best(run.records, {name: str(info.get("accelerator")) for name, info in infos.items()})
    versions = ", ".join(sorted({str(info.get("tilelang")) for info in infos.values()})) or None
    measured = datetime.datetime.fromisoformat(run.document["datetime"]).isoformat(timespec="seconds")
    update_best_file(best_path, entries, versions, date=measured)
    for e in entries:
        ratio = f"{e.vs_vendor:.3f}x the in-run vendor item" if e.vs_vendor else "no vendor item"
        print(f"{e.problem_id}: {e.case_id} {e.median_s * 1e6:.2f} us, {ratio}, of {e.candidates}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m tlbench.harness.tools.best_from_run RUN.json[.gz] BEST_CONFIGS.json")
    main(*sys.argv[1:3])
