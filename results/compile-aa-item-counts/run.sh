#!/usr/bin/env bash
# Real compile runs of the smoke stage suite with different item counts, for the compile gate's
# A/A check: 28-item runs (14 per backend), 14-item runs (-k bn128: 7 per backend), 2-item runs
# (one item per backend), 2-item runs of one backend (round-robin over 2), 28-item runs beside two busy loops, and runs with one item made 1.2x
# slower by the test-only compile slowdown (-p test_only.faults, from tests/).  Usage: run.sh OUT_DIR [WHICH...]
# (WHICH: full N | fourteen N | two N | pair N | busy N | slow N | slowtwo N); each makes OUT_DIR/<which><N>.json.
set -euo pipefail
out=${1:?OUT_DIR}; shift
mkdir -p "$out"
export PYTHONPATH=$PWD/tests${PYTHONPATH:+:$PYTHONPATH}  # where test_only/ is
slowed=gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2
common=(suites/gemm/test_stages.py -q -p no:cacheprovider --benchmark-only --tlbench-backend=nvidia,ascend
        --tlbench-kind=compile --tlbench-scope=smoke)
slow_opts=(-p test_only.faults "--tlbench-nvidia-test-only-compile-slowdown=$slowed:0.2"
           "--tlbench-ascend-test-only-compile-slowdown=$slowed:0.2")
run() {  # name, extra pytest args...
    local name=$1; shift
    echo "== $name: python -m pytest ${common[*]} $* --benchmark-json=$out/$name.json"
    python -m pytest "${common[@]}" "$@" --benchmark-json="$out/$name.json" > "$out/$name.log" 2>&1 || true
    tail -1 "$out/$name.log"
}
while [ $# -gt 0 ]; do
    which=$1 n=$2; shift 2
    case $which in
        full) run "full$n" ;;
        fourteen) run "fourteen$n" -k bn128 ;;
        two) run "two$n" -k "$slowed" ;;
        pair) run "pair$n" -k "nvidia and (bn256-bk64-t256-auto-s1 or bn256-bk64-t256-auto-s2)" ;;
        slow) run "slow$n" "${slow_opts[@]}" ;;
        slowtwo) run "slowtwo$n" -k "$slowed" "${slow_opts[@]}" ;;
        busy)
            python3 -c 'while 1: pass' & b1=$!
            python3 -c 'while 1: pass' & b2=$!
            run "busy$n"
            kill "$b1" "$b2"; wait "$b1" "$b2" 2>/dev/null || true ;;
        *) echo "unknown run kind $which" >&2; exit 2 ;;
    esac
done
