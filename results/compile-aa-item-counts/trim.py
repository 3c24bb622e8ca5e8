"""Trim a results file of run.sh to what compare reads and gzip it: pytest-benchmark's raw
``stats.data``, each record's budget and its plan's buffers are dropped; samples, CPU seconds,
machine probes, round-robin widths and methods are kept untouched.

``python3 results/compile-aa-item-counts/trim.py IN.json OUT.json.gz``
"""

import gzip
import json
import sys


def main(source: str, target: str) -> None:
    doc = json.load(open(source))
    for bench in doc["benchmarks"]:
        bench.get("stats", {}).pop("data", None)
        rec = bench["extra_info"]["tlbench"]
        rec.pop("budget", None)
        if isinstance(rec.get("plan"), dict):
            rec["plan"].pop("buffers", None)
    with gzip.open(target, "wt", encoding="utf-8") as out:
        json.dump(doc, out, separators=(",", ":"))


if __name__ == "__main__":
    main(*sys.argv[1:3])
