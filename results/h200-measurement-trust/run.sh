#!/usr/bin/env bash
# Does tlbench compare call nothing when nothing changed, and the one slowed kernel when one is slowed?
# And does the device time agree with Nsight Compute?  One H200, from the repo root:
#
#   bash results/h200-measurement-trust/run.sh aa|base|slow|ncu OUT_DIR
#
#   aa    four A/A runs (separate processes) of the stage suite and the tile sweep's g8 items at
#         8192^3 (40 timed items, two of them cuBLAS), device items, interleaved rounds; compares the three consecutive
#         pairs, then the committed baseline and a baseline re-made from run 1 vs run 4.  ~5 min
#   base  one run of the same selection as OUT_DIR/aa4.json (slow's base on a fresh machine)   ~1 min
#   slow  the same selection with one kernel made ~5-6 % slower (a test-only extra kernel sized at
#         7 % of its time; the add_ over a smaller buffer runs a little faster than the sizing
#         probe), vs aa4.json.                                                              ~1.5 min
#   ncu   interleaved harness / ncu processes (3 + 3) at 8192^3 and 2048^3.                  ~3 min
set -u
what=$1; out=$2; mkdir -p "$out"
export PYTHONPATH=$PWD/.gpu/site:$PWD:$PWD/tests PYTHONUNBUFFERED=1  # tests/: the test-only plugin (-p test_only.faults)
SEL=(suites/gemm/test_stages.py suites/gemm/test_tiles.py -k "8192 and (test_stages or g8 or vendor)")
DEV=(--benchmark-only --tlbench-scope=full --tlbench-backend=nvidia --tlbench-kind=device --tlbench-rounds=5 --tlbench-batch=10 --tlbench-max-samples=100 --tlbench-seed=1)
SLOWED=gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3
compare_pair() { echo "== tlbench compare $1 $2"; python3 -m tlbench compare "$1" "$2" --markdown "$3"; echo "exit $?"; }
case $what in
aa)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv
  for i in 1 2 3 4; do
    /usr/bin/time -f "run $i wall %e s" python3 -m pytest -q "${SEL[@]}" "${DEV[@]}" --benchmark-json="$out/aa$i.json" > "$out/aa$i.log" 2>&1
    tail -n 60 "$out/aa$i.log" | grep -E "DRIFT|CAPPED|passed|failed|wall" ; done
  for p in "1 2" "2 3" "3 4"; do set -- $p; compare_pair "$out/aa$1.json" "$out/aa$2.json" "$out/cmp-aa$1-aa$2.md"; done
  compare_pair results/baselines/nvidia-h200.json "$out/aa4.json" "$out/cmp-committed-baseline-aa4.md"
  mkdir -p "$out/baselines" && python3 -m tlbench baseline update "$out/aa1.json" --out-dir "$out/baselines"
  compare_pair "$out"/baselines/*.json "$out/aa4.json" "$out/cmp-new-baseline-aa4.md" ;;
base)  # one run of the selection as aa4.json: the base of `slow` when the A/A runs were on another machine
  python3 -m pytest -q "${SEL[@]}" "${DEV[@]}" --benchmark-json="$out/aa4.json" > "$out/aa4.log" 2>&1
  tail -n 1 "$out/aa4.log" ;;
slow)
  python3 -m pytest -q "${SEL[@]}" "${DEV[@]}" -p test_only.faults --tlbench-nvidia-test-only-slowdown="$SLOWED:0.07" --benchmark-json="$out/slow.json" > "$out/slow.log" 2>&1
  grep -h "TEST-ONLY SLOWDOWN" "$out/slow.json" | head -1
  compare_pair "$out/aa4.json" "$out/slow.json" "$out/cmp-aa4-slow.md" ;;
ncu)
  for c in gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3 gemm-2048x2048x2048-f16-bm128-bn256-bk64-t256-auto-s3; do
    python3 -m tlbench.backends.tools.ncu_crosscheck interleaved --case $c --pairs 3 --count 10 --out-dir "$out/ncu-${c:5:4}" 2>&1 | grep -v Warning; done ;;
*) echo "usage: bash results/h200-measurement-trust/run.sh aa|base|slow|ncu OUT_DIR" >&2; exit 2 ;;
esac
