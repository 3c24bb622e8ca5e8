#!/usr/bin/env bash
# CPU box: the acceptance runs of the instruction-count and plan verdicts (results/cpu-instruction-counts/README.md has
# the numbers).  TEST ONLY options come from -p test_only.compile_changes.  Run from
# the repo root with tlbench importable (installed, or the checkout on PYTHONPATH).
# BEFORE=DIR: a checkout of the parent commit, linked the same way (PYTHONPATH_BEFORE), for the
# wall-time comparison; runs alternate before/after.  Everything goes under $OUT.
set -u
OUT=${OUT:-/tmp/tlbench-cpu-instruction-counts}
mkdir -p "$OUT/empty"
JOB=(--backend nvidia,ascend --timeout 2400 --baseline-dir "$OUT/empty")
ARGS="--tlbench-kind=compile --tlbench-scope=smoke --tlbench-instructions=subset"
PLUGIN="-p test_only.compile_changes"
export PYTHONPATH=$PWD/tests${PYTHONPATH:+:$PYTHONPATH}  # where test_only/ is
ITEM=ascend/gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3
# 3 % of ITEM's count (823,280,287 Ir on the 2-core box): extra_work(33084) = 24,698,790 Ir under callgrind
EXTRA=${EXTRA:-33084}
night() {  # OUT-NAME HISTORY [extra pytest args]
  local start; start=$(date +%s)
  tlbench nightly suites "${JOB[@]}" --out-dir "$OUT/$1" --history "$2" --pytest-args="$ARGS ${3:-}" > "$OUT/$1.stdout" 2>&1
  echo "$1: exit $? wall $(( $(date +%s) - start )) s load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/walls.txt"
}
before() {
  local start; start=$(date +%s)
  (cd "$BEFORE" && PYTHONPATH=$PYTHONPATH_BEFORE tlbench nightly suites "${JOB[@]}" --out-dir "$OUT/$1" \
      --pytest-args="--tlbench-kind=compile --tlbench-scope=smoke" > "$OUT/$1.stdout" 2>&1)
  echo "$1: exit $? wall $(( $(date +%s) - start )) s load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/walls.txt"
}
[ -n "${BEFORE:-}" ] && before before1
night n1 "$OUT/H.sqlite"                                   # night 1: gated nothing
[ -n "${BEFORE:-}" ] && before before2
night n2 "$OUT/H.sqlite"                                   # night 2: judged against the history
night n3 "$OUT/H.sqlite" "$PLUGIN --tlbench-test-only-extra-lowering-work=$ITEM:$EXTRA"  # night 3: exit 1 naming ITEM
night a3 "$OUT/HA3.sqlite"                                 # A/A
python3 -c "while True: pass" & HOG1=$!
python3 -c "while True: pass" & HOG2=$!
night a4 "$OUT/HA4.sqlite"; night a5 "$OUT/HA5.sqlite"     # A/A beside two busy loops
kill "$HOG1" "$HOG2"
for n in n1 n2 n3; do head -1 "$OUT/$n/summary.md"; done
for a in n1 n2 a3 a4 a5; do for b in n1 n2 a3 a4 a5; do [ "$a" = "$b" ] && continue
  for be in ascend nvidia; do
    tlbench compare "$OUT/$a/$be-cpu.json" "$OUT/$b/$be-cpu.json" --markdown "$OUT/aa-$a-$b-$be.md" > /dev/null 2>&1
    echo "$a -> $b $be: $(grep -c '\[instructions\] |' "$OUT/aa-$a-$b-$be.md") instruction rows, not SAME: $(grep '\[instructions\] |' "$OUT/aa-$a-$b-$be.md" | grep -vc '^| SAME')"
  done; done; done
tlbench baseline update "$OUT/n1/json/test_stages.json" --out-dir "$OUT/base-stages"
tlbench nightly suites/gemm/test_stages.py --backend nvidia,ascend --timeout 2400 --out-dir "$OUT/plan" --baseline-dir "$OUT/base-stages" \
  --pytest-args="$ARGS $PLUGIN --tlbench-test-only-num-stages=ascend/gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s3:1 --tlbench-test-only-pass-config=nvidia/gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s2:tl.disable_warp_specialized=true" > "$OUT/plan.stdout" 2>&1
echo "plan change nightly exit $? (1: MODEL WORSE)"; grep -E "^\| (MODEL|PLAN)" "$OUT/plan/summary.md" | cut -c1-200
