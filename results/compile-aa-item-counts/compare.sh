#!/usr/bin/env bash
# Judge the runs of run.sh: each pair BASE NEW with `tlbench compare --json` (a subset run with
# --accept-missing), one line per pair: exit code, verdict counts, whole-run shift verdicts and
# the item verdicts other than SAME/MISSING.  Usage: compare.sh DIR BASE:NEW ...
set -uo pipefail
dir=${1:?DIR}; shift
for pair in "$@"; do
    base=${pair%%:*} new=${pair##*:}
    tlbench compare "$dir/$base.json" "$dir/$new.json" --accept-missing --json > "$dir/cmp-$base-$new.json" 2> "$dir/cmp-$base-$new.err"
    code=$?
    python3 - "$dir/cmp-$base-$new.json" "$base" "$new" "$code" <<'PY'
import json, sys
path, base, new, code = sys.argv[1:]
try:
    d = json.load(open(path))
except ValueError:
    print(f"{base} -> {new}: exit {code}, no JSON ({open(path[:-5] + '.err').read().strip()[:200]})")
    raise SystemExit
counts = {k: v for k, v in d["counts"].items() if v and k != "MISSING"}
shifts = [s["verdict"] for s in d["shifts"]]
print(f"{base} -> {new}: exit {code}; {counts}; shifts {shifts}")
for item in d["items"]:
    if item["verdict"] in ("SLOWER", "FASTER"):
        print(f"    {item['verdict']} {item['backend']} {item['case_id']}: {item['reason'][:160]}")
PY
done
