#!/usr/bin/env bash
# Wall time of a run split into N shards run at once, each pinned to its own cores (N "hosts"),
# against the same run unsharded on one such host; and the fixed cost a shard pays.
#
# usage (repository root, tlbench installed or linked in; run it on a quiet host):
#   bash results/cpu-shards/timing.sh [N] [OUT_DIR]
#   N        shards (default 2); each gets CORES_PER_HOST cores (default: nproc / N), and the
#            unsharded run gets the same count (cores 0..CORES_PER_HOST-1): one host against N
#   OUT_DIR  default results/runs/shard-timing (the JSON files, logs and summary.txt)
# The run: the compile items of the full stage, core-pipelining and Ascend schedule suites
# (TIMING_SUITES / TIMING_ARGS to change it).  Model: one host's wall T1 = F + W; shard i's
# Ti = F + Wi with sum(Wi) = W, so the fixed cost per shard F = (sum(Ti) - T1) / (N - 1) and
# the sharded wall max(Ti) ~ F + W / N.  Printed beside it: its parts that are measured
# directly (collection: `--collect-only`; each backend's untimed first compile, setup_s) and
# the merge, and per shard how much slower its items compiled than in the unsharded run: F is
# a fixed cost only where that is about 1.00 (on a shared box the shards and the other load
# slow each other, and the formula's F holds that too).  The inert-key probe cache is warmed
# once first, so neither run pays it.
set -u
N=${1:-2}
OUT=${2:-results/runs/shard-timing}
CORES=$(nproc)
PER=${CORES_PER_HOST:-$((CORES / N))}
if [ "$PER" -lt 1 ]; then echo "shard-timing: $N shards need $N cores, this host has $CORES" >&2; exit 2; fi
SUITES=${TIMING_SUITES:-"suites/gemm/test_stages.py suites/gemm/test_core_pipelining.py suites/gemm/test_ascend_schedule.py"}
ARGS=${TIMING_ARGS:-"--tlbench-kind=compile --tlbench-scope=full"}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export TLBENCH_COMMIT=${TLBENCH_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)} TLBENCH_COMMIT_DIRTY=${TLBENCH_COMMIT_DIRTY:-0}
export TLBENCH_CACHE_DIR=${TLBENCH_CACHE_DIR:-$OUT/tlbench-cache} PYTHONUNBUFFERED=1
secs() { date +%s.%N; }
since() { "$PY" -c "print(f'{$(secs) - $1:.1f}')"; }
cores() { echo "$(($1 * PER))-$((($1 + 1) * PER - 1))"; }
# shellcheck disable=SC2086  # SUITES and ARGS are word lists
run() { taskset -c "$1" "$PY" -m pytest $SUITES $ARGS -p no:cacheprovider -q "${@:2}"; }  # CORES PYTEST-ARGS...
S="$OUT/summary.txt"
: > "$S"
echo "host $(hostname), $CORES cores, load before: $(cut -d' ' -f1-3 /proc/loadavg); $N shards of $PER core(s) each vs 1 host of $PER" >> "$S"

t0=$(secs); run "$(cores 0)" --collect-only > "$OUT/warm.log" 2>&1
echo "probe cache warmed (collect-only, not counted): $(since "$t0") s" >> "$S"
t0=$(secs); run "$(cores 0)" --collect-only > "$OUT/collect.log" 2>&1
collect=$(since "$t0")
echo "collection alone (start-up + collection, warm probe cache, $PER core(s)): $collect s" >> "$S"

t0=$(secs); run "$(cores 0)" --benchmark-only --benchmark-json="$OUT/unsharded.json" > "$OUT/unsharded.log" 2>&1
rc=$?; t1=$(since "$t0")
echo "unsharded on cores $(cores 0): exit $rc, wall $t1 s, $(tail -1 "$OUT/unsharded.log" | cut -c1-100)" >> "$S"

t0=$(secs)
for i in $(seq 1 "$N"); do
  ( s0=$(secs); run "$(cores $((i - 1)))" --benchmark-only --tlbench-shard="$i/$N" --benchmark-json="$OUT/shard-$i.json" > "$OUT/shard-$i.log" 2>&1
    echo "$i $? $(since "$s0")" > "$OUT/shard-$i.wall" ) &
done
wait
sharded=$(since "$t0")
for i in $(seq 1 "$N"); do
  read -r _ rc wall < "$OUT/shard-$i.wall"
  echo "shard $i/$N on cores $(cores $((i - 1))): exit $rc, wall $wall s, $(tail -1 "$OUT/shard-$i.log" | cut -c1-100)" >> "$S"
done
t0=$(secs); "$PY" -m tlbench.harness.cli merge "$OUT"/shard-*.json -o "$OUT/merged.json" > "$OUT/merge.log" 2>&1; rc=$?
merge=$(since "$t0")
echo "merge: exit $rc, $merge s: $(head -1 "$OUT/merge.log" | cut -c1-160)" >> "$S"
"$PY" -m tlbench.harness.cli compare "$OUT/unsharded.json" "$OUT/merged.json" > "$OUT/compare.log" 2>&1
echo "tlbench compare unsharded merged: exit $?" >> "$S"
"$PY" - "$OUT" "$N" "$t1" "$sharded" "$collect" "$merge" >> "$S" <<'EOF'
import json, sys
out, n, t1, sharded, collect, merge = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
walls = [float(open(f"{out}/shard-{i}.wall").read().split()[2]) for i in range(1, n + 1)]
def items(path):
    d = json.load(open(path)); t = d.get("tlbench") or {}
    return {b["fullname"] for b in d["benchmarks"]} | {r["nodeid"] for r in t.get("failed", []) + t.get("skipped", [])}, t.get("setup_s") or {}
whole, setup1 = items(f"{out}/unsharded.json")
merged, _ = items(f"{out}/merged.json")
setups = [items(f"{out}/shard-{i}.json")[1] for i in range(1, n + 1)]
fixed = (sum(walls) - t1) / (n - 1) if n > 1 else float("nan")
print(f"items: unsharded {len(whole)}, merged {len(merged)}, same set: {whole == merged}")
print(f"wall: one host {t1:.1f} s; {n} shards at once {sharded:.1f} s (slowest shard {max(walls):.1f} s) = {sharded / t1:.3f} of one host "
      f"(1/{n} = {1 / n:.3f}); + merge {merge:.1f} s")
print(f"fixed cost per shard F = (sum of shard walls - one host) / (N - 1) = ({sum(walls):.1f} - {t1:.1f}) / {n - 1} = {fixed:.1f} s; "
      f"model F + W/N = {fixed + (t1 - fixed) / n:.1f} s vs measured slowest shard {max(walls):.1f} s")
print(f"  of it measured directly: start-up + collection {collect:.1f} s; untimed first compile per backend "
      f"(setup_s) unsharded {setup1}, shards {setups}")
import statistics
def records(path):
    return {b["fullname"]: b["extra_info"]["tlbench"]["samples_s"] for b in json.load(open(path))["benchmarks"]}
one = records(f"{out}/unsharded.json")
for i in range(1, n + 1):
    mine = records(f"{out}/shard-{i}.json")
    ratio = statistics.median(statistics.median(v) / statistics.median(one[k]) for k, v in mine.items() if k in one)
    print(f"shard {i}: its items' work in the unsharded run {sum(sum(one[k]) for k in mine if k in one):.0f} s of timed rounds; "
          f"per item, shard / unsharded median {ratio:.2f} (1.00: the shards did not slow each other; above: F absorbs the contention)")
EOF
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$S"
cat "$S"
