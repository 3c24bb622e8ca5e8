#!/usr/bin/env bash
# The CPU night as .github/workflows/nightly.yml runs it - five shards of the compile items with
# every item's lowering counted under callgrind, merged, then the gate - with the shards one after
# another on one machine (the workflow runs them on five runners at once), from the repo root:
#
#   bash results/cpu-night/run.sh OUT [COSTS]
#
# COSTS: an earlier night's merged file to deal the shards by (--tlbench-shard-costs; the workflow
# gives results/cpu-night/night.json.gz); none: by problem size.  Each shard's wall, user and
# system CPU and the load at its start go to OUT/night.log; its trace to OUT/trace-I.jsonl.
set -u
OUT=$1; COSTS=${2:-}
mkdir -p $OUT/shards
for I in 1 2 3 4 5; do
  echo "=== shard $I/5 start $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/night.log
  /usr/bin/time -f "shard $I wall %e s user %U s sys %S s" env TLBENCH_TRACE=$OUT/trace-$I.jsonl \
    python3 -m pytest suites -p no:cacheprovider --benchmark-only \
    --tlbench-backend=nvidia,ascend --tlbench-kind=compile --tlbench-scope=smoke \
    --tlbench-instructions=all --tlbench-shard=$I/5 ${COSTS:+--tlbench-shard-costs=$COSTS} \
    --benchmark-json=$OUT/shards/cpu-$I.json > $OUT/shard-$I.out 2>&1
  echo "=== shard $I/5 exit $? end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/night.log
  tail -1 $OUT/shard-$I.out >> $OUT/night.log
done
python3 -m tlbench merge $OUT/shards/cpu-*.json -o $OUT/cpu-run.json --allow-partial
python3 -m tlbench nightly --from-results $OUT/cpu-run.json --backend nvidia,ascend --timeout 2400 \
  --out-dir $OUT/nightly --history $OUT/history.sqlite \
  --pytest-args="--tlbench-kind=compile --tlbench-scope=smoke --tlbench-instructions=all" > $OUT/nightly.out 2>&1
echo "=== gate exit $? $(date +%T)" >> $OUT/night.log
