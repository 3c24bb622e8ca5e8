#!/usr/bin/env bash
# The search against the exhaustive sweep on one GPU: suites/gemm/test_tiles.py at one size, device items.
# Usage: bash results/search-live/run.sh OUT SIZE STEP...   STEP: exh-cold search-cold search-warm exh-warm search-learn autotuner
# search-learn: the search, cold, learning from the earlier run $LEARN_FROM (another size, same device).
# autotuner: tilelang's AutoTuner over the configs exh-cold timed (or those of $CONFIGS_FROM).
# "cold": a fresh tilelang kernel cache (every config compiled); "warm": the cache its cold run left.
set -u
OUT=$1; SIZE=$2; shift 2
mkdir -p "$OUT"
run_suite() {  # NAME CACHE [OPTIONS...]
  local name=$1 cache=$2; shift 2
  local start end
  start=$(date +%s.%N)
  TILELANG_CACHE_DIR=$cache python3 -m pytest -q suites/gemm/test_tiles.py -k "${SIZE}x${SIZE}x${SIZE}" --tlbench-scope=full \
    --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device --tlbench-seed=1 -p no:cacheprovider \
    --benchmark-json="$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  end=$(date +%s.%N)
  echo "$name rc=$rc wall_s=$(python3 -c "print(round($end - $start, 1))")" | tee -a "$OUT/walls.txt"
  tail -4 "$OUT/$name.log"
}
for step in "$@"; do
  case $step in
    exh-cold) run_suite exh-cold .cache-tl/exh ;;
    search-cold) run_suite search-cold .cache-tl/search --tlbench-search=model ;;
    search-warm) run_suite search-warm .cache-tl/search --tlbench-search=model ;;
    search-learn) run_suite search-learn .cache-tl/learn --tlbench-search=model --tlbench-search-learn-from="$LEARN_FROM" ;;
    exh-warm) run_suite exh-warm .cache-tl/exh ;;
    autotuner)
      start=$(date +%s.%N)
      TILELANG_CACHE_DIR=.cache-tl/autotuner python3 results/search-live/autotuner_side_by_side.py "${CONFIGS_FROM:-$OUT/exh-cold.json}" \
        "$SIZE" "$SIZE" "$SIZE" "$OUT/autotuner.json" > "$OUT/autotuner.log" 2>&1
      rc=$?; end=$(date +%s.%N)
      echo "autotuner rc=$rc wall_s=$(python3 -c "print(round($end - $start, 1))")" | tee -a "$OUT/walls.txt"
      tail -3 "$OUT/autotuner.log" ;;
  esac
done
rm -f "$OUT"/*.journal.jsonl; gzip -9 -n -f "$OUT"/*.json 2>/dev/null  # what comes back: small
